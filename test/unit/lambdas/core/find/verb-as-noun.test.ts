// Issue 27: everyday requests on a big catalog without search hints (Seal-Tools' 4,000 tools named verb-first,
// getVideoSurveillanceFeed) got a confident tool when the request's verb was a noun of the tool's name: "feed
// the ducks at the pond" → a camera feed. The judge's `verb-as-noun` rule answers none when the request's verb
// is met in the top tool's name only among the words of what it acts on, the tool's own verb and action class
// are others, and no tool just behind starts its name with the request's verb.
import { describe, expect, it } from "vitest";
import { apiFinder, expectRuleTurnsNone } from "./catalog.js";

const ROWS = [
  ["cybersecurity.getVideoSurveillanceFeed", "Retrieve the live video feed of a surveillance camera."],
  ["agriculture.getPlantDetails", "Get details about a plant species, such as its water needs."],
  ["finance.getStockPrice", "Get the latest price of a stock."],
  ["food.getRecipe", "Get a recipe for a dish."],
  ["travel.getFlightStatus", "Get the status of a flight."],
  ["art.createPainting", "Create a digital painting from a description."],
  ["messaging.sendEmail", "Send an email message to a recipient."],
  ["finance.calculateTax", "Calculate the tax owed on an income."],
];
/** The camera's feed under a verb only one name starts with: not a catalog of verb-first names. */
const RARE_VERB = ROWS.map(([n, d]) => (n === "cybersecurity.getVideoSurveillanceFeed" ? ["cybersecurity.broadcastVideoFeed", d!] : [n!, d!]));
/** Five tools named send-first: sending email is a send, whichever word the request says it with. */
const SENDERS = [
  ...ROWS,
  ["messaging.sendSms", "Send a text message to a phone."],
  ["messaging.sendFax", "Send a fax to a number."],
  ["billing.sendInvoice", "Send an invoice to a customer."],
  ["mail.sendPostcard", "Send a printed postcard to an address."],
];
/** An MCP server's tools, each name repeating the server's: the verb is the word after the prefix. */
const PREFIXED = [
  ...ROWS,
  ["playwright.playwright_save_as_pdf", "Save the open page as a PDF file."],
  ["playwright.playwright_navigate", "Open a URL in the browser."],
  ["playwright.playwright_click", "Click an element of the page."],
  ["playwright.playwright_fill", "Fill a form field of the page."],
  ["playwright.playwright_screenshot", "Take a screenshot of the page."],
];
/** A pet feeder that ranks behind the camera for a request about the camera's ducks. */
const WITH_FEEDER = [...ROWS, ["pets.feedPet", "Dispense a portion of food from a connected pet feeder."]];

describe("the judge's verb-as-noun rule", () => {
  it("answers none when the request's verb is a noun of the top tool's name, and says why", async () => {
    await expectRuleTurnsNone(ROWS, "feed the ducks at the pond", { verbNounVerdict: 1 }, "imported.cybersecurity.getVideoSurveillanceFeed", {
      rule: "verb-as-noun",
      effect: "×0.60",
      detail:
        "the request's verb (\"feed\") is in the top tool's name only as a word of what it acts on; the tool's own verb is \"get\", and no tool just behind starts its name with the request's verb: the tool is about the thing, not doing it",
    });
  });

  it("holds back when the verb takes no object, is no noun of the top tool's name, starts a tool behind, or names the tool's action", async () => {
    for (const [rows, query, top, why] of [
      [ROWS, "feed ducks at the pond", "cybersecurity.getVideoSurveillanceFeed", "a bare noun after the verb: no deed done to a thing"],
      [ROWS, "water the plants in the garden", "agriculture.getPlantDetails", "the verb is no word of the tool's name"],
      [RARE_VERB, "feed the ducks at the pond", "cybersecurity.broadcastVideoFeed", "one name starts with broadcast: not a verb-first catalog"],
      [SENDERS, "email the tax summary to my accountant", "messaging.sendEmail", "emailing is sending, the tool's action"],
      [PREFIXED, "save the config to settings.json", "playwright.playwright_save_as_pdf", "the tool's verb after its server's prefix is save"],
      [WITH_FEEDER, "feed the ducks on the camera video at the pond", "cybersecurity.getVideoSurveillanceFeed", "feedPet, just behind, starts with feed"],
    ] as const) {
      const r = await (await apiFinder(rows)).find({ query, schemas: false, explain: true, min_score: 0 });
      expect({ query, top: r.tools[0]?.name }).toEqual({ query, top: `imported.${top}` });
      expect({ query, why, fired: r.verdict_reasons!.some((x) => x.rule === "verb-as-noun") }).toEqual({ query, why, fired: false });
    }
  });
});

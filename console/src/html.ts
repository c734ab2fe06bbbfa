// htm bound to Preact: tagged templates instead of JSX, so the console needs no JSX compiler. Values in
// a template are rendered as text or attributes, never parsed as HTML (the console has no innerHTML).
export { html } from "htm/preact";

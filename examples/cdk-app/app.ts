// A CDK app of your own that embeds the Toolbelt gateway, installed as a package (see README.md).
import { App, CfnOutput, Stack } from "aws-cdk-lib";
import { ToolbeltGateway } from "toolbelt/infra";

const app = new App();
const stack = new Stack(app, "Agents", { description: "AI agent tools behind a Toolbelt gateway" });

const gateway = new ToolbeltGateway(stack, "Toolbelt", {
  // Built at synth; `artifactDir` takes a prebuilt artifact instead.
  registryDir: "registry",
  policy: "policy.json",
  // Every variable the registry's families declare: plain values here, secrets by where they live.
  environment: { WEATHER_API_URL: "https://weather.example.com" },
  secrets: { WEATHER_API_KEY: { parameter: "/agents/weather-api-key" } },
  tracing: true,
});

new CfnOutput(stack, "ToolsUrl", { value: gateway.url });

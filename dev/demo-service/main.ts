// The demo service as its own process (`npm start` runs it so): PORT and DEMO_SERVICE_TOKEN from the
// environment; a slow route (math.factorize on a large prime) then blocks this process, not the gateway.
import { startDemoService } from "./index.js";

const token = process.env.DEMO_SERVICE_TOKEN;
if (!token) throw new Error("DEMO_SERVICE_TOKEN is not set");
const service = await startDemoService({ port: Number(process.env.PORT ?? 0), token });
const stop = () => void service.close().finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

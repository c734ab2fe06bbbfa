// zod/mini for the Lambdas: the same parser and JSON Schema generator as full zod without its
// method-chaining layer (about 50 KB less in every bundle, test/infra/bundle.test.ts). Full zod
// loads its English messages by itself; mini leaves that to the importer, so it happens here, once.
import { config } from "zod/mini";
import { en } from "zod/v4/locales";

config(en());

export * from "zod/mini";

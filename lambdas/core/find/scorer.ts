// The scorer became the pipeline's stages (analyse.ts, retrieve.ts, rerank.ts) and its knobs tuning.ts;
// this name stays only for the eval scripts that import the knobs' type from here.
export { DEFAULT_QUERY_PARAMS, type QueryParams } from "../../../registry/contract/find-tuning.js";

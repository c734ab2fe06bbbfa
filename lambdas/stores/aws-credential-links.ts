// Stand-ins for the SDK's credential providers that read ~/.aws files, SSO token caches, a
// credential_process or a web-identity token file. infra/bundling.ts aliases those four packages to
// this module in the Lambda bundles: none of their sources exists in a Lambda function, whose role
// credentials come from the environment (fromEnv, first in the chain) or the container endpoint
// (remoteProvider, still bundled). Each link answers "try the next one", as the real provider does
// when its source is missing, and about 120 KB of nested STS/SSO clients stays out of every bundle.

/** The SDK's chains move on when a provider error carries `tryNextLink`. */
class CredentialsProviderError extends Error {
  override readonly name = "CredentialsProviderError";
  readonly tryNextLink = true;
}

const notInLambda = (source: string) => () => async (): Promise<never> => {
  throw new CredentialsProviderError(`${source} is not read inside a Lambda bundle; its role credentials come from the environment`);
};

export const fromIni = notInLambda("the shared config and credentials files");
export const fromSSO = notInLambda("IAM Identity Center (SSO)");
export const fromProcess = notInLambda("credential_process");
export const fromTokenFile = notInLambda("a web identity token file");

// The Bedrock client's bearer-token scheme (Bedrock API keys, or an SSO token cache whose OIDC client
// is another nested client): a function's role signs its requests with SigV4 instead.
export const fromEnvSigningName = notInLambda("a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)");
export const nodeProvider = notInLambda("an SSO token cache");

// DynamoDB adapter: the only module (with its table helper) that imports the AWS SDK.
// Single-table design: pk/sk strings, `expires_at` epoch seconds as the TTL attribute.
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  waitUntilTableExists,
  type DynamoDBClientConfig,
} from "@aws-sdk/client-dynamodb";
import { DeleteCommand, DynamoDBDocumentClient, paginateQuery, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { Socket } from "node:net";
import type { Config } from "../config.js";
import { ToolbeltError } from "../core/errors.js";
import { translateSdkError } from "./sdk-errors.js";
import type { Pin, SessionRecord, SessionStore } from "../core/ports.js";

/** The table's key schema and TTL attribute; the CDK stack declares the same. */
export const TABLE_SCHEMA = { partitionKey: "pk", sortKey: "sk", ttlAttribute: "expires_at" } as const;

// A session's partition: the session item, and one item per pin (`PIN#<tool>`) so pins never share a write.
const sessionPk = (id: string) => `SESSION#${id}`;
const sessionKey = (id: string) => ({ pk: sessionPk(id), sk: "SESSION" });
const PIN_PREFIX = "PIN#";
const pinKey = (id: string, name: string) => ({ pk: sessionPk(id), sk: `${PIN_PREFIX}${name}` });

/**
 * How the client retries throttling and transient failures: at most `maxAttempts` requests, each retry
 * after a full-jitter exponential backoff (a random wait up to base, 2×base, 4×base..., never above
 * `maxDelayMs`); then the error goes up and the caller gets 503 UNAVAILABLE. A new connection gives up
 * after `connectTimeoutMs` of connecting, and a request after `requestTimeoutMs` without a byte from
 * the table, so a stalled table cannot hold a call for longer than the sum.
 */
export type DynamoRetry = { maxAttempts: number; baseDelayMs: number; maxDelayMs: number; connectTimeoutMs: number; requestTimeoutMs: number };
/** Worst case before a 503: 4 requests of at most 5 s (within API Gateway's 30 s) and backoffs of at most 50 + 100 + 200 ms. */
export const DEFAULT_DYNAMO_RETRY: DynamoRetry = { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 1000, connectTimeoutMs: 1000, requestTimeoutMs: 5000 };

export type DynamoOptions = { endpoint?: string; region?: string; retry?: Partial<DynamoRetry> };

type RetryStrategyV2 = Extract<NonNullable<DynamoDBClientConfig["retryStrategy"]>, { refreshRetryTokenForRetry: unknown }>;

/** The SDK's retry strategy interface with our bounds: no retry token bucket, the attempt count and backoff are all there is. */
function boundedRetry(r: DynamoRetry): RetryStrategyV2 {
  const token = (count: number, delay: number) => ({ getRetryCount: () => count, getRetryDelay: () => delay });
  return {
    acquireInitialRetryToken: async () => token(0, 0),
    refreshRetryTokenForRetry: async (last, info) => {
      const count = last.getRetryCount() + 1;
      // Throwing ends the retries; the SDK then throws the request's own error.
      if (count >= r.maxAttempts || info.errorType === "CLIENT_ERROR") throw new Error("no retry");
      return token(count, Math.floor(Math.random() * Math.min(r.maxDelayMs, r.baseDelayMs * 2 ** (count - 1))));
    },
    recordSuccess: () => undefined,
  };
}

const SILENT = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The SDK's own pool size: more parallel requests wait in the agent's queue for a socket. */
const MAX_SOCKETS = 50;

/**
 * Bounds connecting itself. The SDK's `connectionTimeout` also counts the time a request waits in the
 * agent's queue for one of its sockets, so in a burst (200 parallel pin writes) requests that only
 * waited their turn failed as "did not connect", four times over, and the call answered 503 or its pin
 * was lost. Here a new socket that has not connected in time is destroyed with a transient error.
 */
function connectBounded<A extends HttpAgent>(agent: A, ms: number): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback);
    if (socket instanceof Socket && socket.connecting) {
      const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`no connection to the table within ${ms} ms`), { code: "ETIMEDOUT" })), ms);
      const clear = () => clearTimeout(timer);
      socket.once("connect", clear).once("close", clear);
    }
    return socket;
  };
  return agent;
}

/** One client per cold start; pass `endpoint` for dynalite. */
export function createDynamoClient(opts: DynamoOptions = {}): DynamoDBDocumentClient {
  const retry = { ...DEFAULT_DYNAMO_RETRY, ...opts.retry };
  const pool = { keepAlive: true, maxSockets: MAX_SOCKETS };
  const config: DynamoDBClientConfig = {
    region: opts.region ?? "us-east-1",
    retryStrategy: boundedRetry(retry),
    requestHandler: {
      httpAgent: connectBounded(new HttpAgent(pool), retry.connectTimeoutMs),
      httpsAgent: connectBounded(new HttpsAgent(pool), retry.connectTimeoutMs),
      // An idle timer armed once connected (the SDK's `requestTimeout` also counts queueing, and only warns).
      socketTimeout: retry.requestTimeoutMs,
      // Its console warning that requests wait for a socket: in a burst that queue is the intended backpressure.
      logger: SILENT,
    },
  };
  if (opts.endpoint) {
    config.endpoint = opts.endpoint;
    // dynalite checks no signature; static credentials keep the SDK off the credential chain.
    config.credentials = { accessKeyId: "local", secretAccessKey: "local" };
  }
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** The client a deployment's config names: its region, and its endpoint when one is set (dynalite, tests). */
export function clientFromConfig(config: Pick<Config, "region" | "dynamodbEndpoint">): DynamoDBDocumentClient {
  return createDynamoClient({ region: config.region, ...(config.dynamodbEndpoint ? { endpoint: config.dynamodbEndpoint } : {}) });
}

const translate = (err: unknown, op: string) => translateSdkError(err, "session store", op);

function toRecord(item: Record<string, unknown>, pins: Pin[]): SessionRecord {
  return {
    id: String(item.id),
    principal: String(item.principal),
    ...(typeof item.brief === "string" ? { brief: item.brief } : {}),
    declared: Array.isArray(item.declared) ? (item.declared as string[]) : [],
    pins,
    created_at: Number(item.created_at),
    expires_at: Number(item.expires_at),
  };
}

const toPin = (item: Record<string, unknown>): Pin => ({ name: String(item.name), bytes: Number(item.bytes), last_used: Number(item.last_used) });

export class DynamoSessionStore implements SessionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(session: SessionRecord): Promise<void> {
    const { pins, ...rest } = session;
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...sessionKey(session.id), type: "session", ...rest },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) {
        throw new ToolbeltError("CONFLICT", "session id already exists", { session: session.id });
      }
      throw translate(err, "create");
    }
    await Promise.all(pins.map((p) => this.putPin(session.id, p, session.expires_at)));
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    try {
      // One query reads the session and its pins; a partition holds the pins within the budget plus
      // a few evicted ones not yet removed, so it pages only in extreme cases.
      let session: Record<string, unknown> | undefined;
      const pins: Pin[] = [];
      const pages = paginateQuery(
        { client: this.client },
        { TableName: this.table, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": sessionPk(id) }, ConsistentRead: true },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          if (item.sk === "SESSION") session = item;
          else if (String(item.sk).startsWith(PIN_PREFIX)) pins.push(toPin(item));
        }
      }
      return session ? toRecord(session, pins) : undefined;
    } catch (err) {
      throw translate(err, "get");
    }
  }

  putPin(id: string, pin: Pin, expiresAt: number): Promise<void> {
    return this.unlessBeaten(
      "pin",
      new PutCommand({
        TableName: this.table,
        Item: { ...pinKey(id, pin.name), type: "pin", ...pin, expires_at: expiresAt },
        // Two uses of one tool at once: the later use wins whichever lands last (no retry either way).
        ConditionExpression: "attribute_not_exists(last_used) OR last_used < :at",
        ExpressionAttributeValues: { ":at": pin.last_used },
      }),
    );
  }

  dropPin(id: string, pin: Pin): Promise<void> {
    return this.unlessBeaten(
      "unpin",
      new DeleteCommand({
        TableName: this.table,
        Key: pinKey(id, pin.name),
        // Only the use the evicting writer saw: a pin used again since then stays.
        ConditionExpression: "last_used = :seen",
        ExpressionAttributeValues: { ":seen": pin.last_used },
      }),
    );
  }

  renew(id: string, expiresAt: number): Promise<void> {
    return this.unlessBeaten(
      "renew",
      new UpdateCommand({
        TableName: this.table,
        Key: sessionKey(id),
        UpdateExpression: "SET expires_at = :at",
        // Later only, and never a session that does not exist (an update would create it).
        ConditionExpression: "attribute_exists(pk) AND expires_at < :at",
        ExpressionAttributeValues: { ":at": expiresAt },
      }),
    );
  }

  /** A conditional write that lost is the intended outcome (someone got there first), not an error: never retried. */
  private async unlessBeaten(op: string, command: PutCommand | DeleteCommand | UpdateCommand): Promise<void> {
    try {
      // The union has no common `send` overload; each member is a valid document-client command.
      await this.client.send(command as PutCommand);
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw translate(err, op);
    }
  }
}

/**
 * Create the table if missing (dynalite and `npm start`; on AWS the CDK stack owns it).
 * TTL cannot be enabled here: dynalite lacks UpdateTimeToLive, and code filters expired items anyway.
 */
export async function ensureTable(client: DynamoDBDocumentClient, table: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: table }));
    return;
  } catch (err) {
    if (!(err instanceof Error) || err.name !== "ResourceNotFoundException") throw translate(err, "describe table");
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: TABLE_SCHEMA.partitionKey, AttributeType: "S" },
          { AttributeName: TABLE_SCHEMA.sortKey, AttributeType: "S" },
        ],
        KeySchema: [
          { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: "HASH" },
          { AttributeName: TABLE_SCHEMA.sortKey, KeyType: "RANGE" },
        ],
      }),
    );
  } catch (err) {
    if (!(err instanceof ResourceInUseException)) throw translate(err, "create table");
  }
  // The SDK's waiter asks at once (dynalite with createTableMs: 0 is ACTIVE then), then backs off for up to 5 s.
  // It only sends DescribeTable, which the document client passes through unchanged.
  try {
    await waitUntilTableExists({ client: client as unknown as DynamoDBClient, minDelay: 0.05, maxDelay: 0.5, maxWaitTime: 5 }, { TableName: table });
  } catch (err) {
    throw new ToolbeltError("UNAVAILABLE", `table ${table} did not become active`, {}, { cause: err });
  }
}

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
import { DynamoDBDocumentClient, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Config } from "../config.js";
import { ToolbeltError } from "../core/errors.js";
import { translateSdkError } from "./sdk-errors.js";
import type { Pin, SessionRecord, SessionStore } from "../core/ports.js";

/** The table's key schema and TTL attribute; the CDK stack declares the same. */
export const TABLE_SCHEMA = { partitionKey: "pk", sortKey: "sk", ttlAttribute: "expires_at" } as const;

const sessionKey = (id: string) => ({ pk: `SESSION#${id}`, sk: "SESSION" });

export type DynamoOptions = { endpoint?: string; region?: string };

/** One client per cold start; pass `endpoint` for dynalite. */
export function createDynamoClient(opts: DynamoOptions = {}): DynamoDBDocumentClient {
  const config: DynamoDBClientConfig = { region: opts.region ?? "us-east-1" };
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

function toRecord(item: Record<string, unknown>): SessionRecord {
  return {
    id: String(item.id),
    principal: String(item.principal),
    ...(typeof item.brief === "string" ? { brief: item.brief } : {}),
    declared: Array.isArray(item.declared) ? (item.declared as string[]) : [],
    pins: Array.isArray(item.pins) ? (item.pins as Pin[]) : [],
    version: Number(item.version),
    created_at: Number(item.created_at),
    expires_at: Number(item.expires_at),
  };
}

export class DynamoSessionStore implements SessionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async create(session: SessionRecord): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...sessionKey(session.id), type: "session", ...session },
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) {
        throw new ToolbeltError("CONFLICT", "session id already exists", { session: session.id });
      }
      throw translate(err, "create");
    }
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    try {
      const out = await this.client.send(new GetCommand({ TableName: this.table, Key: sessionKey(id), ConsistentRead: true }));
      return out.Item ? toRecord(out.Item) : undefined;
    } catch (err) {
      throw translate(err, "get");
    }
  }

  async update(next: SessionRecord, expectedVersion: number): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...sessionKey(next.id), type: "session", ...next },
          // Named so the intent reads: write only over the exact version this writer read.
          ConditionExpression: "attribute_exists(pk) AND #version = :expected",
          ExpressionAttributeNames: { "#version": "version" },
          ExpressionAttributeValues: { ":expected": expectedVersion },
        }),
      );
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) {
        throw new ToolbeltError("CONFLICT", "session changed concurrently", { session: next.id });
      }
      throw translate(err, "update");
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

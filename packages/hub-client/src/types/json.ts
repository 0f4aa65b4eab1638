// The open JSON object the hub carries in message data, meta values and vote breakdowns.

/** An open JSON object (message data, meta values, vote breakdowns...). */
export type JsonObject = { [key: string]: unknown };

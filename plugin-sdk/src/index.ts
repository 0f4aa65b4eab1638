/**
 * `@keel/plugin-sdk`: everything a Keel plugin is written against. Plugins import only this
 * package, engine interfaces and other plugins' public tokens.
 */
export { SDK_VERSION } from './version.js';
export { isOptional, isToken, optional, providedValues, token } from './tokens.js';
export type { Token, OptionalToken, DepsMap, ProvidedTokens, Provides, ResolvedDeps } from './tokens.js';
export { defineSchema, defineSchemaFor, schema } from './schema.js';
export type { Schema, JsonSchema, FromJsonSchema, JsonSchemaInput, Infer, SameType, SchemaTypeMismatch } from './schema.js';
export { core } from './core-tokens.js';
export type {
  Logger, LogFields, PluginStorage, SubDatabaseOptions, WorkerPool, WorkerPools, WorkerPoolOptions,
  Principal, AuthService, Validator, Clock, Paths, HostInfo, HangRecord, Watchdog, WatchdogStatus,
} from './core-tokens.js';
export type { StorageEnvOptions, WorkerStorageHandle } from './worker-storage.js';
export { route, reply, isReply, HANDLED } from './routes.js';
export type {
  RouteDefinition, RouteContext, RouteAuth, PrincipalFor, BodyKind, HttpMethod, Reply, ResponseSpec, UploadedFile, AnyRoute,
} from './routes.js';
export { defineAuthenticator, admit, credentialOf, bearerCredential } from './authenticators.js';
export type { Authenticator, SecurityScheme } from './authenticators.js';
export {
  HttpError, isHttpError, badRequest, unauthorized, forbidden, notFound, methodNotAllowed, conflict, gone,
  payloadTooLarge, unprocessable, tooManyRequests, serviceUnavailable, gatewayErrorFormat, openaiErrorFormat,
  StartRefusedError, isStartRefused,
} from './errors.js';
export type { ErrorDetail, HttpErrorOptions, ErrorFormatter, FormattedError } from './errors.js';
export { definePlugin, isPlugin } from './plugin.js';
export { UsageError, isUsageError } from './commands.js';
export type { PluginCommand, CommandModule, CommandContext, CommandOutput, ServeOptions } from './commands.js';
export type { PluginDefinition, PluginInstance, PluginPage, SetupContext, AnyPlugin, MountPoint, ServeFlag } from './plugin.js';
export type { SocketRoute, SocketAdmission, SocketConnection } from './sockets.js';
export { encodeSse, openSse, lastEventId, SseStream, STREAM_HOST_KEY } from './sse.js';
export type { SseEvent, SseOptions, SseCloseReason, StreamHost } from './sse.js';
export { jsonDepth, textExceedsJsonDepth, exceedsJsonDepth } from './json-depth.js';
export { jsonSizeWithin, JSON_TOO_DEEP } from './json-size.js';
export { formatBytes } from './format-bytes.js';
export { KEY_ID_MAX_LENGTH } from './key-id.js';
export { staticFolder } from './files/static-folder.js';
export type { StaticFolderOptions, StaticFile } from './files/static-folder.js';
export { contentTypeOfName, dispositionHeader, FALLBACK_CONTENT_TYPE, sendFile, writeFileReply } from './files/file-reply.js';
export type { FileReplyOptions, WriteFileOptions } from './files/file-reply.js';
export type { ConfinedFile } from './files/confined-file.js';
export { streamToNewFile } from './files/stream-to-new-file.js';
export { prefixEnd, prefixRange } from './storage/key-prefix.js';
export type { PrefixRange, PrefixRangeOptions } from './storage/key-prefix.js';

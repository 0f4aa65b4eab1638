// Attachments and the virtual file system.

/** What a message carries of an attachment (hub-filled from the blob). */
export interface AttachmentRef {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

/** The upload answer (and the channel's attachment row). */
export interface UploadedAttachment extends AttachmentRef {
  channel: string;
  created_by: string;
  created_at: number;
}

export interface UploadOptions {
  /** Default: the File's name, else `file`. */
  filename?: string;
  /** Declared type; default: the Blob's type, else `application/octet-stream`. */
  content_type?: string;
}

export interface FsEntry {
  path: string;
  version: number;
  updated_by: string;
  updated_at: number;
  /** Bytes (decoded, for binary files). */
  size: number;
  /** The writer's, else derived from the first content line. */
  description: string;
  described: boolean;
  /** Present on binary files only. */
  encoding?: 'base64';
}

export interface FsFile {
  path: string;
  /** `''` for binary files. */
  content: string;
  content_b64: string | null;
  encoding: 'base64' | null;
  mime: string;
  version: number;
  updated_at: number;
  updated_by: string;
  description: string;
  size_bytes: number;
}

/** Exactly one of `content` / `content_b64` (the hub refuses both or neither). */
export interface FsPutArgs {
  content?: string;
  content_b64?: string;
  description?: string;
  mime?: string;
  expect_version?: number | null;
}

export interface FsDeleteResult {
  deleted: boolean;
}

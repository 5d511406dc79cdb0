-- Multipart uploads of large blobs straight to object storage (worker/services/blob-uploads.ts, which
-- declares these tables). One open upload per (digest, user): asking again resumes it. Parts are what the
-- client reported stored; completion needs every part, and R2 verifies the whole blob's digest.
CREATE TABLE `blob_uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`digest` text NOT NULL,
	`size` integer NOT NULL,
	`part_size` integer NOT NULL,
	`part_count` integer NOT NULL,
	`s3_key` text NOT NULL,
	`s3_upload_id` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL
);
CREATE UNIQUE INDEX `blob_uploads_digest_user` ON `blob_uploads` (`digest`, `created_by`);
CREATE TABLE `blob_upload_parts` (
	`upload_id` text NOT NULL,
	`number` integer NOT NULL,
	`size` integer NOT NULL,
	`etag` text NOT NULL,
	`sha256` text NOT NULL,
	PRIMARY KEY(`upload_id`, `number`)
);

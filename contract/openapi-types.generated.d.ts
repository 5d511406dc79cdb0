// Generated from contract/openapi.json by `npm run gen:openapi`: do not edit.
export interface paths {
    "/v1/admin/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The control plane's metrics, for Prometheus
         * @description Prometheus's text exposition format 0.0.4, `Cache-Control: no-store`; every series is in docs/operations.md "Metrics". A fleet whose object does not answer is `starforge_fleet_up 0` and the scrape still succeeds.
         *
         *     Role: admin or above.
         */
        get: operations["getControlPlaneMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download the checkpoint a run continues from
         * @description For the agent launching a run that resumes (`LaunchRequest.resume_from`): only checkpoints, and only of runs the agent's own fleet scheduled. The `ETag` is the registered digest; the agent hashes the bytes and refuses a mismatch. 404 `NOT_FOUND`: another fleet's run, no such checkpoint, or bytes never uploaded; 404 `BLOB_NOT_FOUND`: the bytes are gone from storage.
         */
        get: operations["downloadAgentCheckpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/connect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open the agent's WebSocket to its fleet
         * @description A WebSocket upgrade authenticated by the node credential, handed to the fleet's Durable Object, which owns the socket from then on (frames, heartbeats and reconciliation: docs/agent-protocol.md). 400 `BAD_REQUEST` without `Upgrade: websocket`; 403 `FORBIDDEN` for a user token; 401 `NODE_REVOKED` once an admin revoked or removed the node.
         */
        get: operations["connectAgent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/enroll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Trade a one-shot enrollment token for a node id and an agent credential
         * @description Public: the enrollment token in the body is the credential. It is spent atomically, so only one caller can use it, and only before it expires. Enrollment mints a node id and a credential; it does not register a node (the agent's hello does, over its socket). 503 `UNAVAILABLE` when `SF_JWT_SECRET` is not configured (checked before the token is spent); 404 `FLEET_NOT_FOUND` when the token's fleet was deleted (the token is spent by then). A failed enrollment counts as a failed login.
         */
        post: operations["enrollAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log, newest first
         * @description Administrative and security-relevant actions, one entry each, recorded once the action succeeded. Pages by `cursor` (the previous page's `next_cursor`, null on the last page).
         *
         *     Role: admin or above.
         */
        get: operations["listAuditEntries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/device": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a device login (sf login without a token)
         * @description Public; no body is needed (one is ignored). Show the person `user_code` and `verification_uri`, then poll POST /v1/auth/device/token every `interval` seconds. `device_code` is a secret: whoever holds it receives the token.
         */
        post: operations["startDeviceLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/device/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Poll a device login for its token
         * @description Public. 200 exactly once per approved code, with a new personal access token of the approver (no expiry). Every other answer is a 400 with an RFC 8628 code: `AUTHORIZATION_PENDING` and `SLOW_DOWN` (poll again after `details.interval` seconds), `ACCESS_DENIED`, `EXPIRED_TOKEN`, `INVALID_GRANT`.
         */
        post: operations["pollDeviceLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blobs/{digest}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a blob (HEAD: does it exist?)
         * @description GET: the bytes, for an admin, the blob's first uploader, a user whose job references it, or an agent of a fleet running a job that references it; read rights are checked before existence, so a digest you may not read is 403 whether it exists or not. HEAD (served by this route) is the upload dedupe probe for operators, admins and agents, with no per-blob right: 200 with `Content-Length` and `ETag` when the blob exists, 404 when it does not, no body either way (403 for viewers).
         */
        get: operations["getBlob"];
        /**
         * Upload a blob's bytes under their digest
         * @description Raw bytes, streamed to storage with a fixed length, which verifies them against the digest in the URL: nothing whose bytes hash otherwise is stored. Write-once: a digest already stored answers 200 with `created: false` and its body is not read. Up to `SF_MAX_BLOB_BYTES`; larger blobs, and any over the Worker's request limit, go through POST /v1/blobs/{digest}/uploads. 400 `BAD_REQUEST`: the body had another length than its Content-Length.
         *
         *     Role: operator or above.
         */
        put: operations["putBlob"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blobs/{digest}/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open or resume a direct multipart upload of a large blob
         * @description `mode: "exists"`: the blob is stored already; `"worker"`: no direct upload is configured and the blob fits a request, PUT it to /v1/blobs/{digest}; `"multipart"`: a presigned PUT URL per part, and the parts an interrupted attempt already stored (`resumed: true`, answered 200). (docs/api.md "Direct uploads")
         *
         *     Role: operator or above.
         */
        post: operations["startBlobUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blobs/{digest}/uploads/{upload}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Give up a multipart upload
         * @description Its records go and object storage is asked to abort it.
         *
         *     Role: operator or above.
         */
        delete: operations["abortBlobUpload"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blobs/{digest}/uploads/{upload}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Assemble a multipart upload and accept it as the blob
         * @description Object storage assembles the reported parts; the result is accepted only if it hashes to the digest (on a mismatch nothing is kept and the upload is gone). `created: false` when another upload stored the blob meanwhile. 409 `UPLOAD_INCOMPLETE`: parts not reported yet (`details.part`, `details.missing`), or refused by object storage.
         *
         *     Role: operator or above.
         */
        post: operations["completeBlobUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blobs/{digest}/uploads/{upload}/parts/{n}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Record that a part of a multipart upload is stored
         * @description With the ETag the part's presigned PUT answered and the sha256 of the bytes sent; reporting a part again replaces its record. 400 `BAD_REQUEST`: `n` out of range, or a size other than the part's (`details.expected`).
         *
         *     Role: operator or above.
         */
        put: operations["reportBlobUploadPart"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/capsule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The job capsule new jobs get
         * @description The digests of `bootstrap.sh` and `runner.pyz`; 404 until one is published.
         *
         *     Role: viewer or above.
         */
        get: operations["getCapsule"];
        /**
         * Publish the job capsule new jobs get
         * @description Exactly `bootstrap.sh` and `runner.pyz`, each already uploaded with PUT /v1/blobs/{digest} (422 `BLOB_MISSING` names those that are not). Jobs already admitted keep the capsule they have.
         *
         *     Role: admin or above.
         */
        put: operations["publishCapsule"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The whole recipe catalog: every recipe and its versions
         * @description Recipes by name, each one's versions ascending by semver (pre-releases before their release). The answer's ETag is the catalog digest; `If-None-Match` is not evaluated.
         *
         *     Role: viewer or above.
         */
        get: operations["getCatalog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/{framework}/{method}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One recipe, `framework/method`, with all its versions
         * @description Role: viewer or above.
         */
        get: operations["getRecipe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/recipes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish a recipe version
         * @description Versions are immutable: republishing identical content changes nothing (200, `created: false`); new content for an existing name and version is ALREADY_EXISTS. An invalid recipe is BAD_REQUEST with `details.issues`.
         *
         *     Role: admin or above.
         */
        post: operations["publishRecipe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List fleets, sorted by name
         * @description Role: viewer or above.
         */
        get: operations["listFleets"];
        put?: never;
        /**
         * Create a fleet
         * @description Its Durable Object is configured before the D1 row is written. A window with an unknown time zone is a 400 `BAD_REQUEST`; a taken name a 409 `ALREADY_EXISTS` (`details.fleet`: the existing fleet, when the pre-check finds it).
         *
         *     Role: admin or above.
         */
        post: operations["createFleet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A fleet and what its Durable Object sees now
         * @description `:fleet` is the fleet's name or id (`flt_…`). `fleet` is the D1 row; the rest (nodes, totals, queue, and the top-level `draining`, `drain_note` and `windows`) is the Fleet DO's live state.
         *
         *     Role: viewer or above.
         */
        get: operations["getFleet"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a fleet's settings
         * @description `:fleet` is the fleet's name or id (`flt_…`). Only the fields sent change (`network`, `labels` and `diagnosis` are replaced whole); a body with none of them changes nothing. The new configuration is pushed to the Fleet DO, which runs a scheduling pass. `draining` is changed by the maintenance routes, not here. A window with an unknown time zone is a 400 `BAD_REQUEST`.
         *
         *     Role: admin or above.
         */
        patch: operations["updateFleet"];
        trace?: never;
    };
    "/v1/fleets/{fleet}/enrollment-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a one-shot enrollment token for an agent joining the fleet
         * @description `:fleet` is the fleet's name or id (`flt_…`). The token (`sfe_…`) is shown once; an agent trades it for its credential at POST /v1/agents/enroll.
         *
         *     Role: admin or above.
         */
        post: operations["createEnrollmentToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/maintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A fleet's maintenance state: its drain, what it holds and what still blocks it
         * @description `:fleet` is the fleet's name or id (`flt_…`). Maintenance can start when `blockers` is empty; `paused`, `held` and `blockers` are empty when the fleet is not draining.
         *
         *     Role: viewer or above.
         */
        get: operations["getFleetMaintenance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/maintenance/drain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Put a fleet into drain for maintenance
         * @description `:fleet` is the fleet's name or id (`flt_…`). New submits are refused (409 `FLEET_DRAINING` with the note), queued jobs are held and running resumable jobs paused (checkpoint, then release); running jobs that cannot resume are listed as `blockers`. Idempotent: draining a draining fleet moves nothing twice and replaces the note.
         *
         *     Role: admin or above.
         */
        post: operations["drainFleet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/maintenance/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End a fleet's drain
         * @description `:fleet` is the fleet's name or id (`flt_…`). Every job the drain paused or held and that is still `PAUSED` is queued again in its original place (`resumed`); a scheduling pass runs. No body is read. Resuming a fleet that is not draining changes nothing.
         *
         *     Role: admin or above.
         */
        post: operations["resumeFleet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/nodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a fleet's nodes, live from its Durable Object
         * @description Each node with its GPUs, and `cordoned`, `cordon_note` and `revoked` beside its status.
         *
         *     Role: viewer or above.
         */
        get: operations["listFleetNodes"];
        put?: never;
        /**
         * Register a node in a fleet, or update it (an upsert by name)
         * @description `:fleet` is the fleet's name or id (`flt_…`). The node becomes `ready` and the fleet runs a scheduling pass; 201 also when it updated an existing node. 409 `CONFLICT`: the name is an agent's node (it registers itself), or the change would drop allocated GPU indices or change the series of a node that holds allocations.
         *
         *     Role: admin or above.
         */
        post: operations["registerFleetNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/nodes/{node}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a node that holds no run
         * @description Answers `"node": null`; an agent of that node stays refused (`NODE_REVOKED`). 409 `CONFLICT` while a run holds GPUs there, or for a node listed by its agent's cluster. `:fleet` is the fleet's name or id, `:node` the node's name or id. Recorded in the audit log.
         *
         *     Role: admin or above.
         */
        delete: operations["removeNode"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/nodes/{node}/cordon": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cordon a node: no new runs are placed on it
         * @description The runs already there go on; queued jobs that only fit there wait with their pending reason. `:fleet` is the fleet's name or id, `:node` the node's name or id. Recorded in the audit log.
         *
         *     Role: admin or above.
         */
        post: operations["cordonNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/nodes/{node}/drain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Drain a node: cordon it and move its resumable jobs elsewhere
         * @description Each job running there that can resume from a checkpoint is stopped (it checkpoints) and queued again at once (`requeued`); jobs that cannot resume go on and are listed in `blockers`. `:fleet` is the fleet's name or id, `:node` the node's name or id. Recorded in the audit log.
         *
         *     Role: admin or above.
         */
        post: operations["drainNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/nodes/{node}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a node's agent: disconnect it and refuse its credential
         * @description Its socket is closed at once, its credential is refused from then on (401 `NODE_REVOKED`) and the node is cordoned; its runs are handled like a lost agent's. 409 `CONFLICT` for a node without an agent of its own (registered by an admin, or reached through a cluster agent). `:fleet` is the fleet's name or id, `:node` the node's name or id. Recorded in the audit log.
         *
         *     Role: admin or above.
         */
        post: operations["revokeNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/nodes/{node}/uncordon": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Uncordon a node: it takes new runs again
         * @description A scheduling pass runs at once. No body is read. 409 `CONFLICT` for a revoked node: its agent must enroll again. `:fleet` is the fleet's name or id, `:node` the node's name or id. Recorded in the audit log.
         *
         *     Role: admin or above.
         */
        post: operations["uncordonNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a fleet's secrets by name (never their values)
         * @description `:fleet` is a fleet name or id.
         *
         *     Role: operator or above.
         */
        get: operations["listFleetSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleets/{fleet}/secrets/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Store or replace a fleet's secret
         * @description For every job on the fleet that names it and has none of that name of its own. Body and answers as PUT /v1/secrets/{name}.
         *
         *     Role: admin or above.
         */
        put: operations["setFleetSecret"];
        post?: never;
        /**
         * Remove a fleet's secret
         * @description Role: admin or above.
         */
        delete: operations["deleteFleetSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness, versions and the ledger's schema
         * @description Public, cheap (one D1 read) and never refused for failed logins or an old sf. `migrations.up_to_date` false means D1 is behind this Worker or was migrated by another release. HEAD answers the same status without a body.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/artifact": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register an artifact (a checkpoint, an export, a report)
         * @description Without `digest` (the original client) a reference: `path` is recorded as given and nothing is downloadable. With `digest` the bytes must have been uploaded (PUT to the target from /artifact/upload), and hash to it. 422 `BLOB_MISSING`: no bytes were uploaded for `path`; 400 `BLOB_DIGEST_MISMATCH`: they hash to another digest; 400 `BAD_REQUEST` also when their size is not `size_bytes`, or an uploaded artifact's path breaks the upload path rules.
         */
        post: operations["ingestArtifact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/artifact/blob/{run}/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Upload an artifact's bytes (the Worker upload target)
         * @description The path after the run is the artifact's path, percent-encoded per segment. The body streams to storage, which refuses it unless it hashes to `digest`; a path uploaded again is overwritten, the same bytes again are not rewritten (200, `created: false`). Up to `SF_MAX_BLOB_BYTES`. 400 `BAD_REQUEST` also for an invalid path or a body shorter or longer than its Content-Length; 403 `FORBIDDEN`: `run` is not the token's run.
         */
        put: operations["putIngestArtifactBlob"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/artifact/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Where to PUT an artifact's bytes
         * @description This Worker's PUT /v1/ingest/artifact/blob/{run}/{path} (with `X-StarForge-Token` in `headers`), or with R2's S3 API configured a presigned PUT to a staging key, valid one hour, signed for exactly `size_bytes`. 400 `BAD_REQUEST` also for a path that is absolute or has empty, `.` or `..` segments, backslashes or control characters.
         */
        post: operations["getIngestArtifactUploadTarget"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/blobs/{digest}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pull mode: fetch a blob the run's job references
         * @description For a workload that cannot see its agent's disk: one of the token's job's capsule files or workspace blobs, by digest. 403 `FORBIDDEN`: the job does not reference it; 404 `NOT_FOUND`: the fleet does not know the token's run; 404 `BLOB_NOT_FOUND`: the bytes are gone from storage.
         */
        get: operations["pullIngestBlob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Pull mode: fetch a checkpoint of a run of the same job
         * @description The run's `resume_from`, as GET /v1/agents/checkpoint serves it to agents. 403 `FORBIDDEN`: `run` is not a run of the token's job; 404 `NOT_FOUND`: it registered no such checkpoint, or its bytes were never uploaded; 404 `BLOB_NOT_FOUND`: they are gone from storage.
         */
        get: operations["pullIngestCheckpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/environment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report an environment probe
         * @description `run_id` and whatever the client found (image, packages, Python, hostname…), stored whole (≤ 256 KiB of JSON) once per distinct content, up to 1000 per run. Past those limits `accepted` is 0 and `rejected` says why (`OVER_LIMIT`).
         */
        post: operations["ingestEnvironment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/environment/nodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report the run's nodes
         * @description `nodes`: up to 1024 of `{ hostname, cpu?, gpu?, … }`, each stored by hostname (a later entry replaces it). Only a body that is not JSON or a wrong envelope fails the request (400); items are checked one by one, the valid ones stored and the others listed in `rejected` with `INVALID_ITEM` or `OVER_LIMIT`.
         */
        post: operations["ingestEnvironmentNodes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/hardware": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report hardware samples
         * @description `points`: up to 256 of `{ key, value, node_id?, worker_id?, gpu_idx?, gpu_uuid?, ts? }`, stored under (key, node_id, worker_id, gpu_idx, ts), so a retried batch is idempotent. Only a body that is not JSON or a wrong envelope fails the request (400); items are checked one by one, the valid ones stored and the others listed in `rejected` with `INVALID_ITEM` or `OVER_LIMIT`.
         */
        post: operations["ingestHardware"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/hparams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report hyperparameters
         * @description Each top-level name is stored with its JSON value; a later report overwrites the names it repeats and keeps the others.
         */
        post: operations["ingestHparams"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/lifecycle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report that a rank started, succeeded or failed
         * @description Goes to the job's fleet first (with the token's epoch), then into the run's record; a replayed report changes nothing. `outcome`: `applied` or `ignored` (the run was over, or the rank had exited); `stop`: the control plane wants this workload gone. 409 `CONFLICT` (`details.outcome: "stale_epoch"`): the token's epoch is not the run's current one; 404 `NOT_FOUND`: the fleet does not know this run or rank.
         */
        post: operations["ingestLifecycle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report log lines
         * @description With `seq` (the capsule's runner): each chunk is one line (≤ 16 KiB) of `stdout` (default) or `stderr`, chunk i being line `seq + i`, and a replay stores nothing new. Without `seq` (the original client): terminal text (chunks ≤ 64 KiB) for the rank's `console` stream, split into lines. Up to 1000 chunks; `accepted` counts lines. 400 `BAD_REQUEST` also for `seq` with `stream: "console"`, or another stream without `seq`. Only a body that is not JSON or a wrong envelope fails the request (400); items are checked one by one, the valid ones stored and the others listed in `rejected` with `INVALID_ITEM` or `OVER_LIMIT`.
         */
        post: operations["ingestLogs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report metric points
         * @description `points`: up to 256 of `{ key, step, value, ts? }`, `value` a number or `"nan"`, `"inf"`, `"-inf"`. Each finite point is stored under (key, step), a rewrite replacing it; a non-finite loss is the run's NAN_LOSS anomaly. Only a body that is not JSON or a wrong envelope fails the request (400); items are checked one by one, the valid ones stored and the others listed in `rejected` with `INVALID_ITEM` or `OVER_LIMIT`.
         */
        post: operations["ingestMetrics"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/notice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Why and by when the run is being stopped
         * @description For the runner when SIGTERM comes: `notice` is null while nobody asked the run to stop; once a stop, pause, drain, window or preemption did, its reason, cause and the SIGKILL deadline.
         */
        get: operations["getIngestStopNotice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/rendezvous": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register a node rank and wait for the run's world
         * @description Stores this node rank's address (rank 0 also its port) for the token's lease epoch, then waits up to `wait_ms` for every rank: `waiting` (with `missing`), `complete` (with `master` and `hosts`), or `failed` when the run is over. 400 `BAD_REQUEST` also for a `node_rank` outside the run's nodes, an `nnodes` that is not the run's, or rank 0 without `port`; 409 `CONFLICT`: the token's epoch is stale; 404 `NOT_FOUND`: the fleet does not know this run.
         */
        post: operations["ingestRendezvous"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingest/validation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report a chunk of a step's validation samples
         * @description `samples`: up to 256 of `{ idx, reward?, user?, assistant?, env? }` (≤ 512 KiB each), stored under (step, idx) so a retried chunk is idempotent. 400 `BAD_REQUEST` also for `chunk_index` ≥ `total_chunks` or a `dist` over 512 KiB. Only a body that is not JSON or a wrong envelope fails the request (400); items are checked one by one, the valid ones stored and the others listed in `rejected` with `INVALID_ITEM` or `OVER_LIMIT`.
         */
        post: operations["ingestValidation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List jobs, newest first
         * @description Your jobs by default; `all=1` or another `user` (admins) lists others'. Pages by `cursor` (the previous page's `next_cursor`). Answers carry an ETag; `If-None-Match` gets 304 while nothing changed.
         *
         *     Role: viewer or above.
         */
        get: operations["listJobs"];
        put?: never;
        /**
         * Submit a job, or a job array admitted all or none
         * @description The body is a JobSpec, or `{ "jobs": [JobSpec, …] }` (what `sf sweep` sends). Admission runs its checks cheapest first and a refusal leaves nothing behind (docs/api.md "POST /v1/jobs"). `?dry_run=1` decides the submit as the fleet would now and undoes it.
         *
         *     Role: operator or above.
         */
        post: operations["submitJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A job: its spec, runs, events and why it failed
         * @description Role: viewer or above.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The artifacts a run registered
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). By step (unnumbered last), then path. `stored`: the bytes were uploaded and can be downloaded; `verified`: the server checked them against `digest`.
         *
         *     Role: viewer or above.
         */
        get: operations["listJobArtifacts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/artifacts/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An artifact's bytes
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). 404 `NOT_FOUND` also when the run registered no artifact at `path`, or registered it by path only (no bytes uploaded); 404 `BLOB_NOT_FOUND`: the bytes are gone from storage.
         *
         *     Role: viewer or above.
         */
        get: operations["downloadJobArtifact"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/environment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's environment probes and nodes
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). `probes`: each distinct probe as the client sent it (without `run_id`); `nodes`: the job's nodes by hostname.
         *
         *     Role: viewer or above.
         */
        get: operations["getJobEnvironment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's timeline: its ledger row, rank reports and the job's transitions
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). `lifecycle`: what its ranks reported (the first report of each event per rank); `transitions`: the job's state changes from this run's dispatch to its end.
         *
         *     Role: viewer or above.
         */
        get: operations["getJobRunEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/hardware": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's hardware series, or one key's samples
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). A series is (key, node_id, worker_id, gpu_idx). Without `key`: every series with its count and latest sample. With `key`: its samples in time order grouped by series, paged with `after` (epoch ms or ISO-8601) and `limit`; `next_after` is null on the last page.
         *
         *     Role: viewer or above.
         */
        get: operations["getJobHardware"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/hparams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's hyperparameters as it last reported them
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). Each top-level name with its JSON value; `updated_at` null when none was reported.
         *
         *     Role: viewer or above.
         */
        get: operations["getJobHparams"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page of a run's log lines, or a live tail (SSE)
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). Lines in readback order from cursor `offset`, `next_offset` is the next page's. With `follow=1` the answer is `text/event-stream`: a `retry: 2000` line and a comment, then each released line from `offset` on as an event whose `id` is its cursor and whose `data` is the line object (JSON), pushed as new lines are released; a `: keep-alive` comment every 15 s while idle; once the run is over, the remaining lines, then `event: end` with `data: {"next_offset": N}`, and the stream closes. `Last-Event-ID` resumes after that cursor (over `offset`).
         *
         *     Role: viewer or above.
         */
        get: operations["getJobLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/logs/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every released log line of a run, as a text file
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). One line per log line in cursor order, written `<rank> <stream> <text>`; `rank` and `stream` keep only those lines. Streamed page by page; a run the ledger shows as over is marked over first, so the file holds every line it will have.
         *
         *     Role: viewer or above.
         */
        get: operations["downloadJobLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's metric keys, or one key's series by step
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). Without `key`: every key with its point count and the point at its highest step. With `key`: that series by step, paged with `after` (a step) and `limit`; `next_after` is the next page's `after`, null on the last.
         *
         *     Role: viewer or above.
         */
        get: operations["getJobMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a job
         * @description Stops the run with a checkpoint and holds the job PAUSED, keeping no GPUs.
         *
         *     Role: operator or above.
         */
        post: operations["pauseJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a job
         * @description Queues a paused job again; it continues from its last checkpoint.
         *
         *     Role: operator or above.
         */
        post: operations["resumeJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop a job
         * @description Stops the job's run (with a checkpoint attempt) and ends the job STOPPED.
         *
         *     Role: operator or above.
         */
        post: operations["stopJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{id}/validation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's validation steps, or one step's samples
         * @description Your own job's, or any job's for an admin; `run` picks one of its runs (default: the current run, else the latest). Without `step`: every step's summary. With `step`: its summary and its samples by `idx`, paged with `after` (an idx) and `limit`; `next_after` is null on the last page. 404 `NOT_FOUND` also when the run reported nothing for that step.
         *
         *     Role: viewer or above.
         */
        get: operations["getJobValidation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller and their effective quota
         * @description The quota is the one an admin set, or the default quota when none was.
         *
         *     Role: viewer or above.
         */
        get: operations["getMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI document
         * @description The document of the API this server serves (`info.version` is its release). Cacheable: answers carry an ETag and `If-None-Match` gets 304.
         */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/priority-classes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List priority classes, highest value first
         * @description The five built-in classes (as an admin changed them) and the ones admins added.
         *
         *     Role: viewer or above.
         */
        get: operations["listPriorityClasses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/priority-classes/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change a priority class, or add one
         * @description Changes the attributes given (the others keep their value), or adds the class: then `value` is required and the rest default to `preemptible: true`, `grace_seconds: 120`, `min_runtime_seconds: 600`, `may_borrow: true`. Every fleet has the new list before the answer. An invalid `:name`, or a new class without `value`, is a 400 `BAD_REQUEST`.
         *
         *     Role: admin or above.
         */
        put: operations["setPriorityClass"];
        post?: never;
        /**
         * Remove a priority class an admin added
         * @description Jobs of that class are scheduled as `normal` from then on. A built-in class cannot be removed (409 `CONFLICT`: change it with PUT); an invalid `:name` is a 400 `BAD_REQUEST`.
         *
         *     Role: admin or above.
         */
        delete: operations["deletePriorityClass"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List GPU profiles, sorted by name
         * @description Role: viewer or above.
         */
        get: operations["listProfiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/profiles/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Create or replace a GPU profile
         * @description The body is the profile without its name (the path's). `default_gpus` must fit one node or be a multiple of `gpus_per_node`. An invalid `:name` is a 400 `BAD_REQUEST`, checked before the body. Answers 200 whether it created or replaced the profile.
         *
         *     Role: admin or above.
         */
        put: operations["setProfile"];
        post?: never;
        /**
         * Delete a GPU profile
         * @description Jobs and quotas that name it are not checked.
         *
         *     Role: admin or above.
         */
        delete: operations["deleteProfile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your secrets by name (never their values)
         * @description `?user=NAME` (admins): another user's.
         *
         *     Role: viewer or above.
         */
        get: operations["listSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/secrets/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Store or replace one of your secrets
         * @description `:name` is an environment variable name (not one StarForge sets). The value is 8 characters to 32 KiB, without NUL, and never comes back from any route.
         *
         *     Role: operator or above.
         */
        put: operations["setSecret"];
        post?: never;
        /**
         * Remove one of your secrets
         * @description `?user=NAME` (admins): another user's. Runs already launched keep the value they were given; a queued job naming it fails to launch, saying why. Another user's secret answers SECRET_NOT_FOUND.
         *
         *     Role: operator or above.
         */
        delete: operations["deleteSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/secrets/rewrap": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Seal every stored secret again under the current SF_SECRETS_KEY
         * @description After SF_SECRETS_KEY was rotated (the old key listed in SF_SECRETS_OLD_KEYS), so the old key can be dropped. Safe to repeat; a value set meanwhile is never overwritten. `unreadable` lists values sealed with a key that is neither current nor listed.
         *
         *     Role: admin or above.
         */
        post: operations["rewrapSecrets"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List teams, by name, with their members, quotas and budgets
         * @description Role: viewer or above.
         */
        get: operations["listTeams"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/teams/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A team, with its members, quotas and budget
         * @description Role: viewer or above.
         */
        get: operations["getTeam"];
        /**
         * Create a team, or change its description
         * @description Names are lowercase `[a-z0-9-]`, starting with a letter, at most 32 characters. Every fleet decides with the change from its next decision on; recorded in the audit log as `team.set`.
         *
         *     Role: admin or above.
         */
        put: operations["setTeam"];
        post?: never;
        /**
         * Delete a team, its memberships and its quotas
         * @description A member whose primary team it was gets another of their teams as primary. Jobs keep their team's name and are scheduled as a team without quotas. Recorded as `team.delete`.
         *
         *     Role: admin or above.
         */
        delete: operations["deleteTeam"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/teams/{name}/budget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a team's GPU-hour budget per month and/or week, and what a spent one does
         * @description Every field is optional: absent keeps it, `null` means no budget for that period. `policy`: `refuse` (default), `pause` or `borrow_free`. Metered at once: a budget set below what the team used binds from this answer on. Recorded as `team.budget.set`.
         *
         *     Role: admin or above.
         */
        put: operations["setTeamBudget"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/teams/{name}/members/{user}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Add a user to a team, or change their membership
         * @description `primary: true` makes this the user's primary team; a user's first team is primary. `"primary": false` on their primary team is a CONFLICT: make another team primary instead. Recorded as `team.member.set`.
         *
         *     Role: admin or above.
         */
        put: operations["setTeamMember"];
        post?: never;
        /**
         * Remove a user from a team
         * @description If it was their primary team, another of their teams becomes primary. Recorded as `team.member.delete`.
         *
         *     Role: admin or above.
         */
        delete: operations["removeTeamMember"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/teams/{name}/quotas/{fleet}/{series}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a team's quota for one GPU series of one fleet
         * @description `:fleet` is a fleet name or id. `guaranteed` is required; `borrow_limit` and `lend_limit` default to `null` (no limit but the fleet's size; all of the guarantee), `weight` to 1. Lowering a quota below what the team holds stops nothing. Recorded as `team.quota.set`.
         *
         *     Role: admin or above.
         */
        put: operations["setTeamQuota"];
        post?: never;
        /**
         * Remove a team's quota for one GPU series of one fleet
         * @description `:fleet` is a fleet name or id. Recorded as `team.quota.delete`.
         *
         *     Role: admin or above.
         */
        delete: operations["deleteTeamQuota"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List personal access tokens, newest first
         * @description The caller's own, or another user's with `user` (admins only, unless it is the caller's own name). `last_used_at` is updated at most once an hour per token.
         *
         *     Role: viewer or above.
         */
        get: operations["listTokens"];
        put?: never;
        /**
         * Create a personal access token for the caller
         * @description `token` is the secret, shown only in this answer.
         *
         *     Role: viewer or above.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a token
         * @description Your own (the one making the request included), or anyone's for an admin. Revoking a revoked token succeeds and changes nothing. Someone else's token answers 404 like no token, so ids cannot be probed.
         *
         *     Role: viewer or above.
         */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's GPU usage, active jobs and quota
         * @description The caller's, or another user's with `user` (admins only, unless it is the caller's own name). Your own usage is read-your-writes, as GET /v1/jobs (503 `UNAVAILABLE` while D1 refuses writes). GPU-hour figures include open runs up to now; `fleets` is every fleet's node capacity.
         *
         *     Role: viewer or above.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * GPU usage per team and fleet in a budget period
         * @description From the ledger: finished allocations by UTC day, plus open runs up to now. Admins see every team and the jobs of no team (`team: null`); others only the teams they are members of. `lost_*` is the part of the GPU time preempted runs trained past their last checkpoint (within `gpu_seconds`).
         *
         *     Role: viewer or above.
         */
        get: operations["getTeamUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List every user, sorted by name
         * @description Role: admin or above.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create a user, and by default their first token
         * @description With `with_token` (the default) the user's first token, named `initial`, is minted in the same D1 batch: both exist or neither. The token is shown only in this answer.
         *
         *     Role: admin or above.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a user's role or disabled flag
         * @description Omitted fields stay as they are; a body with neither changes nothing and answers the user. An admin cannot disable or demote themselves (409 `CONFLICT`).
         *
         *     Role: admin or above.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/v1/users/{name}/quota": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's effective quota
         * @description Non-admins may read only their own (403 `FORBIDDEN`). The user is looked up first, so an unknown name is 404 `USER_NOT_FOUND` whoever asks.
         *
         *     Role: viewer or above.
         */
        get: operations["getUserQuota"];
        /**
         * Replace a user's quota
         * @description A full quota: omitted optional fields take their defaults. Every fleet gets it at once and queued jobs are scheduled against it; a lower `max_jobs` applies from the next submit or resume.
         *
         *     Role: admin or above.
         */
        put: operations["setUserQuota"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List your webhooks, newest first
         * @description `?user=NAME`: another user's (admins only, unless it is your own name).
         *
         *     Role: viewer or above.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook: an endpoint that receives your job events, signed
         * @description `events` defaults to job.succeeded, job.failed and job.stopped; `*` is every job event. Duplicate events are dropped. `secret` signs every delivery and is shown only in this answer. At most 20 webhooks per user (QUOTA_EXCEEDED).
         *
         *     Role: operator or above.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook (never its secret)
         * @description Owner or admin: anyone else's answers WEBHOOK_NOT_FOUND, like one that does not exist.
         *
         *     Role: viewer or above.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook and all its deliveries
         * @description Owner or admin. Pending deliveries are not sent any more (one in flight still completes).
         *
         *     Role: operator or above.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook's deliveries, newest first
         * @description Owner or admin. Pages by `cursor` (the previous page's `next_cursor`). Finished deliveries are kept 30 days.
         *
         *     Role: viewer or above.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{delivery}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One delivery, with the body every attempt sends
         * @description Owner or admin. `:delivery` is the delivery's `id` (the event id, `webhook-id`).
         *
         *     Role: viewer or above.
         */
        get: operations["getWebhookDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{delivery}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a delivery again now, with a fresh retry budget
         * @description Owner or admin. No body. Whatever its state; the same id and body, so a receiver that deduplicates on `webhook-id` processes it once.
         *
         *     Role: operator or above.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace a webhook's signing secret
         * @description Owner or admin. No body. The new secret is shown only in this answer; for 24 hours (`previous_secret_expires_at`) deliveries carry both signatures, so either secret verifies.
         *
         *     Role: operator or above.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Queue a webhook.test delivery to this webhook
         * @description Owner or admin. No body. Sent, retried and listed like any delivery, whatever the webhook's `events`.
         *
         *     Role: operator or above.
         */
        post: operations["testWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "job-event": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A job event
         * @description Sent for each subscribed job event (`job.succeeded`, `job.failed`, …, `job.preempted`, `job.anomaly`), signed per Standard Webhooks (docs/api.md "Verifying a delivery"). A `job.failed` is sent once its diagnosis is known, and carries it in `data.detail.diagnosis`.
         */
        post: operations["webhook_job_event"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook-test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A test delivery
         * @description Sent by POST /v1/webhooks/{id}/test to that endpoint only.
         */
        post: operations["webhook_webhook_test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "team-budget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A team's budget threshold
         * @description `team.budget_warning` at 80 % and `team.budget_exhausted` at 100 % of a period's GPU-hour budget, to the team's members whose endpoints subscribe to it by name.
         */
        post: operations["webhook_team_budget"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Artifact: {
            /** @description Its path in the run, or for a reference the path as the client gave it */
            path: string;
            /** @description `checkpoint`, `hf_export`, `eval_report` or `merged_model` */
            kind: string;
            /** @description The training step it was saved at; null: none */
            step: number | null;
            /** @description Its size in bytes; null: unknown */
            size_bytes: number | null;
            /** @description Its uploaded bytes' digest (`sha256:…`); null for a reference */
            digest: string | null;
            /** @description `true`: the server checked the stored bytes against `digest` */
            verified: boolean;
            /** @description `true`: its bytes were uploaded and can be downloaded; `false`: a reference */
            stored: boolean;
            /** @description Values by name (any JSON) the client attached, e.g. eval scores; null: none */
            metrics: {
                [key: string]: components["schemas"]["JsonValue"];
            } | null;
            /** @description When it was last registered, ISO 8601 UTC */
            registered_at: string;
        };
        AuditEntry: {
            /** @description The entry's number, increasing with each entry */
            seq: number;
            /** @description When the action was recorded, ISO 8601 UTC */
            at: string;
            /** @description Who acted: a user's name, `agent:<node id>` for an agent, or `system` */
            actor: string;
            /** @description The actor's id: the user's (`usr_…`) or the agent's node id; null for `system` */
            actor_id: string | null;
            /** @description What was done, `<noun>.<verb>`, e.g. `user.create`, `secret.set` */
            action: string;
            /** @description What it was done to, `<kind>:<name or id>`, e.g. `user:alice`, `token:tok_…`, `secret:fleet:gpu-east/HF_TOKEN`; just `capsule` for the capsule */
            target: string;
            /** @description The client's address: `CF-Connecting-IP`, else the first `X-Forwarded-For` entry; else null */
            ip: string | null;
            /** @description The client's `User-Agent`, cut to 200 characters; null: none */
            user_agent: string | null;
            /** @description Small facts about the action (a role, changed fields, …); never a secret, token or webhook URL */
            details: {
                [key: string]: unknown;
            };
        };
        BudgetEventPayload: {
            /** @description The event's id, the same on every retry, redelivery and endpoint (the `webhook-id` header): deduplicate by it */
            id: string;
            /** @description When the event happened, ISO 8601 UTC */
            created_at: string;
            /**
             * @description `team.budget_warning` (80 % used) or `team.budget_exhausted` (100 %)
             * @enum {string}
             */
            type: "team.budget_warning" | "team.budget_exhausted";
            /** @description Which team's budget, and how much of it is used */
            data: {
                /** @description The team's name */
                team: string;
                /** @description The budget period: a month (`2026-12`) or an ISO week (`2026-W49`), UTC */
                period: string;
                /** @description The share of the budget reached: 80 or 100 */
                threshold_percent: number;
                /** @description GPU-hours the team used in the period when the threshold was found crossed */
                used_gpu_hours: number;
                /** @description The period's budget, in GPU-hours */
                limit_gpu_hours: number;
                /**
                 * @description What happens once it is spent: `refuse` new jobs, also `pause` running ones, or `borrow_free`
                 * @enum {string}
                 */
                policy: "refuse" | "pause" | "borrow_free";
                /** @description When the period ends and the budget renews, ISO 8601 UTC */
                resets_at: string;
            };
        };
        Diagnosis: {
            /**
             * @description The failure class, a stable code such as `CUDA_OOM` or `NCCL_TIMEOUT`
             * @enum {string}
             */
            class: "CUDA_OOM" | "HOST_OOM" | "NCCL_TIMEOUT" | "NCCL_ERROR" | "GPU_HARDWARE" | "CUDA_ERROR" | "NAN_LOSS" | "HANG" | "DATALOADER" | "DISK_FULL" | "IMPORT_ERROR" | "FILE_NOT_FOUND" | "HF_ACCESS" | "NETWORK" | "SIGNAL" | "TIMEOUT" | "NODE_LOST" | "USER_EXCEPTION" | "UNKNOWN";
            /** @description Why the run failed, in one sentence (with the exception's message where there is one) */
            summary: string;
            /** @description The root-cause rank (the first real failure in time); null when no rank is known */
            rank: number | null;
            /** @description The name of the root-cause rank's node; null when it is not known */
            node: string | null;
            /** @description The log line the diagnosis rests on; null when no stored log line explains the failure */
            line: {
                /** @description The rank that wrote the line */
                rank: number;
                /** @description The log stream the line is in: `stdout`, `stderr` or `console` */
                stream: string;
                /** @description The line's sequence number within its rank and stream (0, 1, 2, …) */
                seq: number;
                /** @description The line's `offset` in `GET /v1/jobs/:id/logs`; null if it was not yet released */
                cursor: number | null;
                /** @description The text of the line */
                text: string;
            } | null;
            /** @description What to change: the deciding fleet rule's hint, else the class's built-in hint */
            hint: string;
            /** @description What was done about the failure */
            action: {
                /**
                 * @description The action named for the class: a matching fleet rule's, the fleet's override or the built-in one
                 * @enum {string}
                 */
                policy: "retry" | "retry_elsewhere" | "retry_if_infra" | "no_retry";
                /** @description Whether the job was re-queued for another attempt */
                retried: boolean;
                /** @description Why it was or was not retried, in words (the class's policy, the job's request, the budget) */
                why: string;
                /** @description The name of the node cordoned for a GPU failure (`retry_elsewhere`); null when none was */
                cordoned: string | null;
            };
            /** @description The index in the fleet's `diagnosis.rules` of the rule that decided the class; null: built-in rules */
            rule: number | null;
            /** @description When the run was diagnosed (ISO 8601 UTC) */
            diagnosed_at: string;
            /** @description False when the run's logs could not be read in time: the diagnosis rests on exits and events */
            from_logs: boolean;
        };
        Digest: string;
        DryRunJob: {
            /**
             * @description What the submit would do now: `start`, `preempt` running jobs, or `wait`
             * @enum {string}
             */
            would: "start" | "preempt" | "wait";
            /** @description Where it would start, by rank (`would` = `start`); empty otherwise */
            placement: {
                /** @description The rank (from 0) this entry places */
                rank: number;
                /** @description The JobSpec pool the rank belongs to */
                pool: string;
                /** @description The node it runs on */
                node_id: string;
                /** @description The GPUs of that node it holds, by index (numbered from 0) */
                gpu_indices: number[];
            }[];
            /** @description Why it would not start at once (`would` = `wait` or `preempt`); empty when it would start */
            pending_reasons: {
                /**
                 * @description What holds it back, a stable code, e.g. `CAPACITY`, `QUOTA_GPUS`, `PREEMPTING`
                 * @enum {string}
                 */
                code: "NO_NODE_OF_SERIES" | "CAPACITY" | "GANG_INCOMPLETE" | "QUOTA_GPUS" | "QUOTA_GPU_HOURS" | "NO_AGENT_RUNTIME" | "WINDOW_CLOSED" | "FLEET_DRAINING" | "PREVIOUS_RUN_STOPPING" | "RUNTIME_WAITING" | "PREEMPTING" | "PREEMPTION_STALLED" | "TEAM_GUARANTEE_FULL" | "TEAM_BORROW_LIMIT" | "TEAM_LEND_LIMIT" | "BUDGET_EXHAUSTED";
                /** @description The same reason in words, for people */
                message: string;
                /**
                 * @description Flat facts for programs (series, limits, counts, times) by name; which ones depend on `code`
                 * @default {}
                 */
                details: {
                    [key: string]: string | number | boolean | null;
                };
            }[];
            /** @description The running jobs it would stop with a checkpoint (`would` = `preempt`); empty otherwise */
            preempts: {
                /** @description The running job's id (`job_…`) */
                job_id: string;
                /** @description Its name */
                name: string;
                /** @description The id (`usr_…`) of its owner */
                user_id: string;
                /** @description Its priority class */
                priority_class: string;
                /** @description GPUs it holds */
                gpus: number;
            }[];
        };
        /** @description Every error answer: a stable `code` to switch on (never the message), a message for people, and facts about the refusal in `details` (docs/api.md "Errors"). */
        Error: {
            /** @description What was refused and why */
            error: {
                /**
                 * @description The stable code to switch on; its HTTP status is fixed per code
                 * @enum {string}
                 */
                code: "ACCESS_DENIED" | "ALREADY_EXISTS" | "AUTHORIZATION_PENDING" | "BAD_REQUEST" | "BLOB_DIGEST_MISMATCH" | "BLOB_MISSING" | "BLOB_NOT_FOUND" | "BLOB_TOO_LARGE" | "BUDGET_EXHAUSTED" | "CLI_TOO_OLD" | "CONFLICT" | "DELIVERY_NOT_FOUND" | "ENROLLMENT_TOKEN_INVALID" | "EXPIRED_TOKEN" | "FLEET_DRAINING" | "FLEET_NOT_FOUND" | "FORBIDDEN" | "FRAMEWORK_VERSION_UNSUPPORTED" | "HF_ACCESS_DENIED" | "HF_NOT_FOUND" | "HF_REVISION_NOT_FOUND" | "HF_TOKEN_REQUIRED" | "HF_UNAVAILABLE" | "IDEMPOTENCY_KEY_REUSED" | "IMAGE_NOT_ALLOWED" | "IMAGE_REQUIRED" | "INTERNAL" | "INVALID_DIGEST" | "INVALID_GRANT" | "INVALID_HYPERPARAMS" | "INVALID_PROFILE" | "INVALID_SPEC" | "INVALID_TRANSITION" | "INVALID_WEBHOOK_EVENT" | "INVALID_WEBHOOK_URL" | "JOB_NOT_FOUND" | "LENGTH_REQUIRED" | "NODE_NOT_FOUND" | "NODE_REVOKED" | "NOT_FOUND" | "NO_ELIGIBLE_FLEET" | "PAYLOAD_TOO_LARGE" | "PRIORITY_CLASS_NOT_ALLOWED" | "PRIORITY_CLASS_UNKNOWN" | "PROFILE_NOT_ALLOWED" | "PROFILE_NOT_FOUND" | "QUOTA_EXCEEDED" | "RECIPE_LOCK_STALE" | "RECIPE_NOT_FOUND" | "RECIPE_VERSION_NOT_FOUND" | "SECRETS_UNAVAILABLE" | "SECRET_MISSING" | "SECRET_NOT_FOUND" | "SLOW_DOWN" | "TEAM_NOT_MEMBER" | "TEAM_UNKNOWN" | "TOKEN_NOT_FOUND" | "TOKEN_REVOKED" | "TOO_MANY_FAILED_LOGINS" | "UNAUTHENTICATED" | "UNAVAILABLE" | "UPLOAD_INCOMPLETE" | "UPLOAD_NOT_FOUND" | "USER_NOT_FOUND" | "WEBHOOK_NOT_FOUND";
                /** @description What went wrong, for people; may change between versions */
                message: string;
                /** @description Facts about the refusal (which limit, which id); for a rejected body or query `{issues: [{path, message}]}`. Absent when there are none */
                details?: unknown;
                /** @description The request's id, as in the `x-request-id` header: quote it when reporting a problem, it finds the server's log line */
                request_id?: string;
            };
        };
        Fleet: {
            /** @description The fleet's id, `flt_` plus a lowercase ULID */
            id: string;
            /** @description The fleet's name, unique */
            name: string;
            /** @description How its agents run jobs: `process`, `docker`, `kuberay` or `slurm` */
            kind: string;
            /** @description What the fleet is, free text */
            description: string;
            /** @description Image patterns its jobs may run (`registry/org/*`, `name:tag`, …); empty: catalog defaults only */
            image_allowlist: string[];
            /** @description When each GPU series runs jobs (`series`, `days`, `start`, `end`, `tz`); empty: always */
            windows: unknown[];
            /** @description `true` while the fleet drains for maintenance: new submits are refused */
            draining: boolean;
            /** @description Why it drains, as the drain was told; null when it does not */
            drain_note: string | null;
            network: components["schemas"]["FleetNetwork"];
            /**
             * @description While the HuggingFace Hub cannot be reached: `refuse` jobs naming a repo (503) or `admit` them
             * @default refuse
             * @enum {string}
             */
            hf_unavailable: "refuse" | "admit";
            /**
             * @description At most this many preemptions start in the fleet per minute; 0: none
             * @default 10
             */
            preemptions_per_minute: number;
            /**
             * @description What a job's `fleet_selector` matches: key → value
             * @default {}
             */
            labels: {
                [key: string]: string;
            };
            /** @description The fleet's own failure rules and per-class retry actions */
            diagnosis?: {
                /**
                 * @description Rules tried in order before the built-in ones; the earliest line or exit one matches decides
                 * @default []
                 */
                rules: {
                    /** @description A JavaScript regular expression over one log line; a leading `(?i)` ignores case */
                    pattern?: string;
                    /** @description Instead of `pattern`: a rank's exit code the rule matches */
                    exit_code?: number;
                    /**
                     * @description The failure class a match gives the run, e.g. `NETWORK`
                     * @enum {string}
                     */
                    class: "CUDA_OOM" | "HOST_OOM" | "NCCL_TIMEOUT" | "NCCL_ERROR" | "GPU_HARDWARE" | "CUDA_ERROR" | "NAN_LOSS" | "HANG" | "DATALOADER" | "DISK_FULL" | "IMPORT_ERROR" | "FILE_NOT_FOUND" | "HF_ACCESS" | "NETWORK" | "SIGNAL" | "TIMEOUT" | "NODE_LOST" | "USER_EXCEPTION" | "UNKNOWN";
                    /** @description What to change, instead of the class's hint */
                    hint?: string;
                    /**
                     * @description What is done about a match (`retry`, `no_retry`, …), instead of the class's action
                     * @enum {string}
                     */
                    action?: "retry" | "retry_elsewhere" | "retry_if_infra" | "no_retry";
                }[];
                /**
                 * @description Per failure class, the action that replaces the built-in one on this fleet
                 * @default {}
                 */
                actions: {
                    [key: string]: "retry" | "retry_elsewhere" | "retry_if_infra" | "no_retry";
                };
            };
            /** @description When the fleet was created, ISO 8601 UTC */
            created_at: string;
        };
        FleetNetwork: {
            /**
             * @description Variables every rank gets, e.g. `NCCL_SOCKET_IFNAME`: collective libraries' network settings only
             * @default {}
             */
            env: {
                [key: string]: string;
            };
            /**
             * @description Seconds the ranks of a distributed job wait for each other at the rendezvous
             * @default 300
             */
            rendezvous_timeout_seconds: number;
            /**
             * @description The ports rank 0 may listen on, `[lowest, highest]`; null: any free port
             * @default null
             */
            port_range: [
                number,
                number
            ] | null;
        };
        FleetNetworkInput: {
            /**
             * @description Variables every rank gets, e.g. `NCCL_SOCKET_IFNAME`: collective libraries' network settings only
             * @default {}
             */
            env: {
                [key: string]: string;
            };
            /**
             * @description Seconds the ranks of a distributed job wait for each other at the rendezvous
             * @default 300
             */
            rendezvous_timeout_seconds: number;
            /**
             * @description The ports rank 0 may listen on, `[lowest, highest]`; null: any free port
             * @default null
             */
            port_range: [
                number,
                number
            ] | null;
        };
        JobDetail: {
            /** @description The job's id, `job_` plus a lowercase ULID */
            id: string;
            /** @description The job's name, the spec's `metadata.name` */
            name: string;
            /** @description The id (`usr_…`) of the user who submitted it */
            user_id: string;
            /** @description The id (`flt_…`) of the fleet it runs in */
            fleet_id: string;
            /**
             * @description Its state, e.g. `QUEUED`, `RUNNING`, `SUCCEEDED`, `FAILED`, `STOPPED`, `PAUSED`
             * @enum {string}
             */
            status: "QUEUED" | "SUBMITTED" | "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "STOPPED" | "PAUSED";
            /** @description Its priority within its class, higher first: its `lifecycle.priority`, capped at its owner's quota */
            priority: number;
            /**
             * @description Its priority class, `lifecycle.priority_class` (default `normal`): higher classes are scheduled first
             * @default normal
             */
            priority_class: string;
            /**
             * @description The team it runs for; null: its submitter is in no team
             * @default null
             */
            team: string | null;
            /** @description GPUs it uses in all: the sum over its pools of `nodes` × `gpus_per_node` */
            gpus: number;
            /** @description Its recipe as `name@version`, e.g. `python/charlm@1.0.0` */
            recipe: string;
            /** @description Why it is not running yet; empty when nothing holds it back */
            pending_reasons: {
                /**
                 * @description What holds it back, a stable code, e.g. `CAPACITY`, `QUOTA_GPUS`, `PREEMPTING`
                 * @enum {string}
                 */
                code: "NO_NODE_OF_SERIES" | "CAPACITY" | "GANG_INCOMPLETE" | "QUOTA_GPUS" | "QUOTA_GPU_HOURS" | "NO_AGENT_RUNTIME" | "WINDOW_CLOSED" | "FLEET_DRAINING" | "PREVIOUS_RUN_STOPPING" | "RUNTIME_WAITING" | "PREEMPTING" | "PREEMPTION_STALLED" | "TEAM_GUARANTEE_FULL" | "TEAM_BORROW_LIMIT" | "TEAM_LEND_LIMIT" | "BUDGET_EXHAUSTED";
                /** @description The same reason in words, for people */
                message: string;
                /**
                 * @description Flat facts for programs (series, limits, counts, times) by name; which ones depend on `code`
                 * @default {}
                 */
                details: {
                    [key: string]: string | number | boolean | null;
                };
            }[];
            /** @description Its newest run's id (`run_…`), kept after that run ends; null before its first dispatch */
            current_run_id: string | null;
            /** @description When it was submitted, ISO 8601 UTC */
            created_at: string;
            /** @description When it last changed, ISO 8601 UTC */
            updated_at: string;
            /** @description `GET /v1/jobs` only: the owner's user name */
            user?: string;
            /** @description `GET /v1/jobs` only: its profile name(s), comma-separated if its pools use several; null: none */
            profile?: string | null;
            /** @description `GET /v1/jobs` only: when its first run took its GPUs, ISO 8601 UTC; null before any run */
            started_at?: string | null;
            /** @description `GET /v1/jobs` only: when its last run ended, ISO 8601 UTC; null unless the job is at rest */
            ended_at?: string | null;
            /** @description The job's runs, one per attempt, oldest first */
            runs: components["schemas"]["Run"][];
        };
        JobEvent: {
            /** @description The event's number in its job's event log, increasing with each event */
            seq: number;
            /** @description When the transition happened (ISO 8601 UTC) */
            ts: string;
            /** @description The job's status before, e.g. `QUEUED`; null for the `admitted` event that created it */
            from: string | null;
            /** @description The job's status after (the same as `from` for `anomaly` and `rerouted` events) */
            to: string;
            /** @description The transition's name, e.g. `admitted`, `dispatch`, `failed`, `retry`, `anomaly` */
            edge: string;
            /** @description Who caused it: `user:<name>`, `agent:<node id>` or `runner:<node id>`, or `system:<part>` */
            actor: string;
            detail: components["schemas"]["JsonValue"];
        };
        JobEventPayload: {
            /** @description The event's id, the same on every retry, redelivery and endpoint (the `webhook-id` header): deduplicate by it */
            id: string;
            /** @description When the event happened, ISO 8601 UTC */
            created_at: string;
            /**
             * @description `job.` plus the status reached, e.g. `job.failed`; `job.preempted` for a preemption's pause, `job.anomaly` for a live anomaly
             * @enum {string}
             */
            type: "job.queued" | "job.submitted" | "job.pending" | "job.running" | "job.succeeded" | "job.failed" | "job.stopped" | "job.paused" | "job.preempted" | "job.anomaly";
            /** @description What happened to which job */
            data: {
                /** @description The job, as of this event */
                job: {
                    /** @description The job's id, `job_` plus a lowercase ULID */
                    id: string;
                    /** @description The job's name, the spec's `metadata.name` */
                    name: string;
                    /** @description The status this event brought it to, e.g. `SUCCEEDED` (its `transition.to`) */
                    status: string;
                    /** @description The id (`usr_…`) of the job's owner, the webhook's owner */
                    user_id: string;
                    /** @description The id (`flt_…`) of the fleet it runs in */
                    fleet_id: string;
                };
                /** @description The run (`run_…`) the event concerns, else the job's current run; null before its first dispatch */
                run_id: string | null;
                /** @description The state change, as the job's event log records it */
                transition: {
                    /** @description The event's number in its job's event log, increasing: orders one job's events */
                    seq: number;
                    /** @description The job's status before, e.g. `RUNNING`; null for the `admitted` event that created it */
                    from: string | null;
                    /** @description The job's status after (the same as `from` for an `anomaly` event) */
                    to: string;
                    /** @description The transition's name, e.g. `admitted`, `dispatch`, `succeeded`, `failed`, `retry`, `anomaly` */
                    edge: string;
                    /** @description Who caused it: `user:<name>`, `agent:<node id>` or `runner:<node id>`, or `system:<part>` */
                    actor: string;
                };
                /** @description Why, in words, when the event says (`detail.reason`); else null */
                reason: string | null;
                /** @description The event's facts as recorded, e.g. `exit_code`, a failure's `diagnosis`, a preemption's `preempted_by` */
                detail: {
                    [key: string]: unknown;
                };
            };
        };
        JobSpec: {
            /**
             * @description The JobSpec's version: `starforge.dev/v1`
             * @constant
             */
            api_version: "starforge.dev/v1";
            /** @description Who and what the job is: its name, labels and where it belongs */
            metadata: {
                /** @description The job's name: lowercase letters, digits and `-`, at most 63 characters */
                name: string;
                /** @description The experiment it belongs to, free text */
                experiment?: string;
                /** @description The project it belongs to, free text */
                project?: string;
                /**
                 * @description Labels to find it by (`sf job ls --label k=v`)
                 * @default {}
                 */
                labels: {
                    [key: string]: string;
                };
                /** @description Set by `sf sweep`: which sweep the job is a point of */
                sweep?: {
                    /** @description The sweep's id, shared by all its jobs */
                    id: string;
                    /** @description This job's place in the sweep, from 0 */
                    index: number;
                    /** @description The hyperparameters this point of the sweep sets */
                    params: {
                        [key: string]: string | number | boolean;
                    };
                };
            };
            /** @description The catalog recipe it runs, pinned by version and digest */
            recipe: {
                /** @description The catalog recipe, `framework/method` (GET /v1/catalog) */
                name: string;
                /** @description The recipe's version (semver) */
                version: string;
                /** @description The recipe's digest, from `recipe.lock.json`: admission refuses another */
                digest: components["schemas"]["Digest"];
            };
            /** @description The framework and runtime the recipe runs on */
            framework: {
                /** @description The framework, e.g. `python` or `torch` */
                kind: string;
                /** @description The framework's version */
                version: string;
                /** @description The catalog runtime it runs on */
                runtime_id: string;
                /**
                 * @description The container image (checked against the fleet's allowlist); null: the runtime's own
                 * @default null
                 */
                image: string | null;
            };
            /** @description The experiment's files */
            source: {
                /** @description The digest of the workspace manifest blob (its files, uploaded first); null: no files */
                workspace: components["schemas"]["Digest"] | null;
                /**
                 * @description The experiment's folder inside the workspace, e.g. `experiments/exp1`
                 * @default .
                 */
                experiment_dir: string;
            };
            /**
             * @description A HuggingFace model the job uses, checked to exist and be readable before admission
             * @default {}
             */
            model: {
                /** @description A HuggingFace model, `org/name`, checked before admission */
                hf_repo?: string;
                /** @description Its revision (branch, tag or commit); `main` */
                revision?: string;
            };
            /**
             * @description A HuggingFace dataset the job uses, checked to exist and be readable before admission
             * @default {}
             */
            data: {
                /** @description A HuggingFace dataset, `org/name`, checked before admission */
                hf_dataset?: string;
                /** @description Its revision (branch, tag or commit); `main` */
                revision?: string;
            };
            /** @description Where it runs and on which GPUs */
            resources: {
                /** @description The fleet (name or id) it runs on; `*`: placed over every fleet. Default: the server's */
                fleet?: string;
                /** @description Instead of `fleet`: the fleets it may run on; it is placed on the one that starts it soonest */
                fleets?: string[];
                /** @description Instead of `fleet`: the fleets whose labels and kind match; `{}`: every fleet whose hardware fits */
                fleet_selector?: {
                    /**
                     * @description Labels a fleet must all have, with these values
                     * @default {}
                     */
                    labels: {
                        [key: string]: string;
                    };
                    /** @description Fleet kinds it may run on (process, docker, slurm, kuberay); default: any */
                    kinds?: ("process" | "docker" | "kuberay" | "slurm")[];
                };
                /** @description The team it runs for and is counted against; default: the submitter's primary team */
                team?: string;
                /** @description The GPUs it needs, as groups of like nodes */
                pools: {
                    /** @description The pool's name, unique in the job (roles name it) */
                    name: string;
                    /** @description The hardware profile it asks for (GET /v1/profiles) */
                    profile: string;
                    /** @description The GPU series, the profile's */
                    series: string;
                    /** @description How many nodes */
                    nodes: number;
                    /** @description GPUs on each node */
                    gpus_per_node: number;
                }[];
                /**
                 * @description Role name → the pool that plays it (the recipe's roles)
                 * @default {}
                 */
                roles: {
                    [key: string]: string;
                };
            };
            /**
             * @description The recipe's parameters, checked against its `params`
             * @default {}
             */
            hyperparams: {
                [key: string]: string | number | boolean;
            };
            /**
             * @description Names of your (or the fleet's) secrets the workload gets as environment variables
             * @default []
             */
            secrets: string[];
            /**
             * @description Priority, retries, time limits and what anomalies do
             * @default {
             *       "max_retries": 2,
             *       "retry_on_user_failure": false
             *     }
             */
            lifecycle: {
                /** @description Its priority within its class, 0–100; capped at your quota's. Default: your quota's */
                priority?: number;
                /** @description Its priority class (GET /v1/priority-classes): orders the queue and decides preemption. Default: `normal` */
                priority_class?: string;
                /**
                 * @description How many times a failed run is retried
                 * @default 2
                 */
                max_retries: number;
                /**
                 * @description Retry also failures its diagnosis blames on the job's own code
                 * @default false
                 */
                retry_on_user_failure: boolean;
                /** @description It can stop with a checkpoint and continue from it. Default: catalog methods yes, custom no */
                resumable?: boolean;
                /** @description A run is stopped this long after it started RUNNING: the job FAILED (`TIMEOUT`), not retried */
                max_runtime_seconds?: number;
                /** @description A job still waiting this long after its submit, never started, ends FAILED (`NO_ELIGIBLE_FLEET`) */
                placement_timeout_seconds?: number;
                /** @description Placed over several fleets: preempt only after waiting this long for a start without. Default 60 */
                preemption_wait_seconds?: number;
                /**
                 * @description What a NaN loss or a hang does: `warn` (default) an event and webhook; `stop` also fails the job
                 * @enum {string}
                 */
                on_anomaly?: "warn" | "stop";
                /** @description A hang is no new step for this many times the median step interval. Default 10 */
                hang_factor?: number;
                /** @description … and at least this long. Default 300 */
                hang_floor_seconds?: number;
            };
            /** @description Where the experiment came from, recorded with the job */
            provenance: {
                /** @description The experiment's git commit, or null outside a repository */
                git_commit: string | null;
                /** @description Whether the working tree had uncommitted changes */
                git_dirty: boolean;
                /** @description The digest of the experiment's config.yaml */
                config_sha: components["schemas"]["Digest"];
            };
        };
        JobSummary: {
            /** @description The job's id, `job_` plus a lowercase ULID */
            id: string;
            /** @description The job's name, the spec's `metadata.name` */
            name: string;
            /** @description The id (`usr_…`) of the user who submitted it */
            user_id: string;
            /** @description The id (`flt_…`) of the fleet it runs in */
            fleet_id: string;
            /**
             * @description Its state, e.g. `QUEUED`, `RUNNING`, `SUCCEEDED`, `FAILED`, `STOPPED`, `PAUSED`
             * @enum {string}
             */
            status: "QUEUED" | "SUBMITTED" | "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "STOPPED" | "PAUSED";
            /** @description Its priority within its class, higher first: its `lifecycle.priority`, capped at its owner's quota */
            priority: number;
            /**
             * @description Its priority class, `lifecycle.priority_class` (default `normal`): higher classes are scheduled first
             * @default normal
             */
            priority_class: string;
            /**
             * @description The team it runs for; null: its submitter is in no team
             * @default null
             */
            team: string | null;
            /** @description GPUs it uses in all: the sum over its pools of `nodes` × `gpus_per_node` */
            gpus: number;
            /** @description Its recipe as `name@version`, e.g. `python/charlm@1.0.0` */
            recipe: string;
            /** @description Why it is not running yet; empty when nothing holds it back */
            pending_reasons: {
                /**
                 * @description What holds it back, a stable code, e.g. `CAPACITY`, `QUOTA_GPUS`, `PREEMPTING`
                 * @enum {string}
                 */
                code: "NO_NODE_OF_SERIES" | "CAPACITY" | "GANG_INCOMPLETE" | "QUOTA_GPUS" | "QUOTA_GPU_HOURS" | "NO_AGENT_RUNTIME" | "WINDOW_CLOSED" | "FLEET_DRAINING" | "PREVIOUS_RUN_STOPPING" | "RUNTIME_WAITING" | "PREEMPTING" | "PREEMPTION_STALLED" | "TEAM_GUARANTEE_FULL" | "TEAM_BORROW_LIMIT" | "TEAM_LEND_LIMIT" | "BUDGET_EXHAUSTED";
                /** @description The same reason in words, for people */
                message: string;
                /**
                 * @description Flat facts for programs (series, limits, counts, times) by name; which ones depend on `code`
                 * @default {}
                 */
                details: {
                    [key: string]: string | number | boolean | null;
                };
            }[];
            /** @description Its newest run's id (`run_…`), kept after that run ends; null before its first dispatch */
            current_run_id: string | null;
            /** @description When it was submitted, ISO 8601 UTC */
            created_at: string;
            /** @description When it last changed, ISO 8601 UTC */
            updated_at: string;
            /** @description `GET /v1/jobs` only: the owner's user name */
            user?: string;
            /** @description `GET /v1/jobs` only: its profile name(s), comma-separated if its pools use several; null: none */
            profile?: string | null;
            /** @description `GET /v1/jobs` only: when its first run took its GPUs, ISO 8601 UTC; null before any run */
            started_at?: string | null;
            /** @description `GET /v1/jobs` only: when its last run ended, ISO 8601 UTC; null unless the job is at rest */
            ended_at?: string | null;
        };
        JsonValue: string | number | boolean | null | components["schemas"]["JsonValue"][] | {
            [key: string]: components["schemas"]["JsonValue"];
        };
        LogLine: {
            /** @description The line's run-wide position in readback order (0, 1, 2, … no holes); pass as `offset` */
            cursor: number;
            /** @description The rank that wrote the line */
            rank: number;
            /** @description `stdout` or `stderr` (the capsule runner's), or `console` (unsequenced terminal text) */
            stream: string;
            /** @description The line's sequence number within its rank and stream (0, 1, 2, …) */
            seq: number;
            /** @description When the server stored the line (ISO 8601 UTC) */
            ts: string;
            /** @description The text of the line */
            line: string;
        };
        MetricPoint: {
            /** @description The training step */
            step: number;
            /** @description The metric's value at that step */
            value: number;
            /** @description When it was measured as the client said, else when it arrived (ISO 8601 UTC) */
            ts: string;
        };
        Node: {
            /** @description The node's id, `nod_` plus a lowercase ULID */
            id: string;
            /** @description The node's name in the fleet */
            name: string;
            /** @description The series of its GPUs, e.g. `h100` */
            series: string;
            /** @description `ready`, `lost` (its agent went silent), or a cluster node's `drain` or `down` */
            status: string;
            /** @description True for a node that dials in (an agent or a cluster node one fronts); false: an admin node */
            agent: boolean;
            /** @description When its agent went silent, ISO 8601 UTC; null unless `status` is `lost` */
            lost_since: string | null;
            /** @description How it runs jobs, e.g. `docker`, `process`, `slurm`; null: not said (an admin node registered without) */
            runtime: string | null;
            /** @description The address its peers reach it at (its agent's `--advertise-addr`); null: none given */
            advertise_addr: string | null;
            /** @description A cluster node: the node id of the agent that fronts it; null for an agent's own host or an admin node */
            agent_id: string | null;
            /** @description Why it takes no new runs, in its cluster's words, e.g. `drain: bad fan`; null when ready */
            status_reason: string | null;
            /** @description What it runs: `image` (jobs with an image), `bare` (jobs without) */
            workloads: string[];
            /** @description Its labels, key → value, e.g. `rack` */
            labels: {
                [key: string]: string;
            };
            /** @description Its GPUs by index, with the run and job holding each */
            gpus: {
                /** @description The GPU's index on the node, from 0 */
                index: number;
                /** @description The run (`run_…`) holding this GPU; null: free */
                run_id: string | null;
                /** @description The job (`job_…`) of the run holding this GPU; null: free */
                job_id: string | null;
            }[];
            /**
             * @description True when an admin took it out of scheduling (cordon, drain, revoke): no new runs; running ones go on
             * @default false
             */
            cordoned: boolean;
            /**
             * @description The admin's note on the cordon; null when not cordoned or no note was given
             * @default null
             */
            cordon_note: string | null;
            /**
             * @description True when its agent was revoked: refused from then on; its runs are handled as a lost agent's
             * @default false
             */
            revoked: boolean;
            /**
             * @description Workloads its agent's last start-up sweep found that no run claimed, stopped or reported
             * @default []
             */
            orphans: {
                /** @description The run its labels name */
                run_id: string;
                /** @description The rank its labels name; null: they name none */
                rank: number | null;
                /** @description The run's epoch its labels name; null: they name none */
                epoch: number | null;
                /** @description The workload in its runtime: container id, process group, Slurm job id or RayJob name */
                ref: string;
                /**
                 * @description `stopped`: the agent stopped and removed it (host runtimes); `reported`: left as it is (clusters)
                 * @enum {string}
                 */
                action: "stopped" | "reported";
            }[];
        };
        PriorityClass: {
            /** @description The class's name, what a job's `lifecycle.priority_class` says: lowercase letters, digits and `-` */
            name: string;
            /** @description Its rank: higher classes are scheduled first and may preempt jobs of lower, preemptible ones */
            value: number;
            /** @description Whether its jobs may be preempted by jobs of a class of higher value */
            preemptible: boolean;
            /** @description Seconds a preempted job of the class gets from SIGTERM to SIGKILL to write its checkpoint */
            grace_seconds: number;
            /** @description Seconds its jobs run before they may be preempted */
            min_runtime_seconds: number;
            /** @description Whether its jobs may use GPUs beyond their team's guarantee, borrowed from idle teams */
            may_borrow: boolean;
            /**
             * @description What the class is for, free text; may be empty
             * @default
             */
            description: string;
            /**
             * @description True for the five classes every installation has (`critical`, `high`, `normal`, `low`, `scavenger`): they cannot be deleted
             * @default false
             */
            builtin: boolean;
        };
        Profile: {
            /** @description The profile's name, what `sf submit --profile` and a pool's `profile` give */
            name: string;
            /** @description The GPU series its jobs run on, e.g. `h100` */
            series: string;
            /** @description GPUs on one node of this profile */
            gpus_per_node: number;
            /** @description The GPUs a job gets when it names none: at most `gpus_per_node`, or a multiple of it */
            default_gpus: number;
            /**
             * @description What the profile is, free text
             * @default
             */
            description: string;
        };
        Quota: {
            /** @description GPUs the user's jobs may hold at once */
            max_gpus: number;
            /** @description Jobs the user may have active at once: `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING` */
            max_jobs: number;
            /** @description GPU-hours the user's jobs may use per UTC day */
            daily_gpu_hours: number;
            /**
             * @description The profiles the user may submit to; empty: every profile
             * @default []
             */
            allowed_profiles: string[];
            /**
             * @description The highest `lifecycle.priority` the user's jobs get, and theirs when they ask for none
             * @default 10
             */
            priority: number;
            /**
             * @description The highest priority class (by value) the user's jobs may ask for
             * @default normal
             */
            max_priority_class: string;
        };
        Run: {
            /** @description The run's id, `run_` plus a lowercase ULID */
            id: string;
            /** @description Which attempt of the job it is, counting from 1 */
            attempt: number;
            /** @description The lease epoch of its dispatch: agent reports carrying another epoch are refused as stale */
            epoch: number;
            /** @description `SUBMITTED`, then `RUNNING` once started; once ended, the job's resting state, e.g. `STOPPED` */
            status: string;
            /** @description Where each rank runs: its pool, node and the exact GPU indices it was given */
            placement: {
                /** @description The rank (from 0) this entry places */
                rank: number;
                /** @description The JobSpec pool the rank belongs to */
                pool: string;
                /** @description The node it runs on */
                node_id: string;
                /** @description The GPUs of that node it holds, by index (numbered from 0) */
                gpu_indices: number[];
            }[];
            /** @description GPUs the run holds in all */
            gpus: number;
            /** @description When it took its GPUs, ISO 8601 UTC */
            allocated_at: string;
            /** @description When it released its GPUs (every rank gone), ISO 8601 UTC; null while it holds them */
            ended_at: string | null;
            /** @description Its exit code (0 when every rank exited 0); null while it runs or if none was reported */
            exit_code: number | null;
            /** @description Why it ended, in words, e.g. `stop by ada`; null while it runs or if none was given */
            reason: string | null;
            /** @description The checkpoint it continued from; null: it started fresh */
            resumed_from: {
                /** @description The run (`run_…`) that stored the checkpoint */
                run_id: string;
                /** @description The checkpoint's training step; null if it has none */
                step: number | null;
            } | null;
            /**
             * @description True when it ran beyond its team's guarantee, on GPUs borrowed from idle teams
             * @default false
             */
            borrowed: boolean;
            /** @description A preempted run once released: steps trained past the job's newest checkpoint; null: none reported */
            steps_lost?: number | null;
            /**
             * @description Why it failed (`class`, `summary`, `hint`…); null until diagnosed, or if it did not fail
             * @default null
             */
            diagnosis: components["schemas"]["Diagnosis"] | null;
        };
        Secret: {
            /** @description The secret's name, the environment variable a job that names it gets */
            name: string;
            /**
             * @description `user`: a user's own; `fleet`: a fleet's, for its jobs that name it and have none of their own
             * @enum {string}
             */
            scope: "user" | "fleet";
            /** @description The fleet's name for a `fleet` secret; null for a `user` one */
            fleet: string | null;
            /** @description The name of the user who last set its value */
            set_by: string;
            /** @description When it was first set, ISO 8601 UTC */
            created_at: string;
            /** @description When its value was last set, ISO 8601 UTC */
            updated_at: string;
        };
        Team: {
            /** @description The team's name: lowercase letters, digits and `-`, a letter first */
            name: string;
            /** @description What the team is, free text */
            description: string;
            /** @description Its members, by user name */
            members: {
                /** @description The member's user id (`usr_…`) */
                user_id: string;
                /** @description The member's user name */
                user: string;
                /** @description `true`: the member's primary team, the one their jobs that name no team run for */
                primary: boolean;
            }[];
            /** @description Its share of each GPU series of each fleet, ordered by fleet and series */
            quotas: {
                /** @description The fleet's id (`flt_…`) */
                fleet_id: string;
                /** @description The fleet's name */
                fleet: string;
                /** @description The GPU series the quota is for, e.g. `h100` */
                series: string;
                /** @description GPUs that are the team's whenever it wants them: its jobs take them back from borrowers */
                guaranteed: number;
                /**
                 * @description GPUs beyond the guarantee it may borrow while others' are idle; null: no limit but the fleet's size
                 * @default null
                 */
                borrow_limit: number | null;
                /**
                 * @description GPUs of its guarantee others may borrow while it leaves them idle; null: all of it
                 * @default null
                 */
                lend_limit: number | null;
                /**
                 * @description Its share of borrowed GPUs against other borrowing teams: more weight, more GPUs
                 * @default 1
                 */
                weight: number;
            }[];
            /**
             * @description Its GPU-hour budget per month and per week, and what a spent one does
             * @default {
             *       "monthly_gpu_hours": null,
             *       "weekly_gpu_hours": null,
             *       "policy": "refuse"
             *     }
             */
            budget: {
                /** @description GPU-hours per calendar month (UTC); null: no budget */
                monthly_gpu_hours: number | null;
                /** @description GPU-hours per ISO week (UTC); null: no budget */
                weekly_gpu_hours: number | null;
                /** @description Once spent: `refuse` new jobs, also `pause` running ones, or `borrow_free` (guarantee only) */
                policy: ("refuse" | "pause" | "borrow_free") | string;
            };
            /** @description When the team was created, ISO 8601 UTC */
            created_at: string;
        };
        TestEventPayload: {
            /** @description The event's id, the same on every retry, redelivery and endpoint (the `webhook-id` header): deduplicate by it */
            id: string;
            /** @description When the event happened, ISO 8601 UTC */
            created_at: string;
            /**
             * @description `webhook.test`
             * @constant
             */
            type: "webhook.test";
            /** @description Which webhook the test is for */
            data: {
                /** @description The id (`wh_…`) of the webhook tested */
                webhook_id: string;
                /** @description A fixed text saying it is a test delivery */
                message: string;
            };
        };
        Token: {
            /** @description The token's id, `tok_` plus a lowercase ULID */
            id: string;
            /** @description The name it was given to tell it apart, e.g. `laptop` */
            name: string;
            /** @description The first 10 characters of its secret (`sfp_…`), to recognise it by */
            prefix: string;
            /** @description When it was created, ISO 8601 UTC */
            created_at: string;
            /** @description When it expires, ISO 8601 UTC; null: never */
            expires_at: string | null;
            /** @description When it was revoked, ISO 8601 UTC; null: it was not */
            revoked_at: string | null;
            /** @description When it last authenticated a request (updated at most hourly), ISO 8601 UTC; null: never */
            last_used_at: string | null;
        };
        User: {
            /** @description The user's id (`usr_…`) */
            id: string;
            /** @description The user's name, unique, e.g. `ada` */
            name: string;
            /** @description The user's e-mail address; null: none */
            email: string | null;
            /** @description `viewer`, `operator` or `admin`: each may do all that the ones before it may */
            role: string;
            /** @description `true`: every request with the user's tokens is refused (403 `FORBIDDEN`) */
            disabled: boolean;
            /** @description When the user was created, ISO 8601 UTC */
            created_at: string;
        };
        Webhook: {
            /** @description The webhook's id, `wh_` plus a lowercase ULID */
            id: string;
            /** @description The id (`usr_…`) of the user it belongs to, whose events it receives */
            user_id: string;
            /** @description Where deliveries are POSTed */
            url: string;
            /** @description The event types it receives, e.g. `job.failed`; `*`: every job event (not the team budget ones) */
            events: string[];
            /** @description Only the job events of this fleet (`flt_…`); null: every fleet's */
            fleet_id: string | null;
            /** @description What the webhook is for, free text */
            description: string;
            /** @description The first 12 characters of its signing secret (`whsec_…`), to tell secrets apart */
            secret_prefix: string;
            /** @description After a rotation, when the old secret stops signing beside the new one (24 h on); else null */
            previous_secret_expires_at: string | null;
            /** @description When it was created, ISO 8601 UTC */
            created_at: string;
        };
        WebhookDelivery: {
            /** @description The event's id, also its `webhook-id` header: `evt_<job id>_<event seq>`, `evt_budget_…` or `evt_<ulid>` (tests) */
            id: string;
            /** @description The id (`wh_…`) of the webhook it is sent to */
            webhook_id: string;
            /** @description The event type, e.g. `job.succeeded`, `team.budget_warning` or `webhook.test` */
            type: string;
            /** @description The job (`job_…`) the event is about; null for test and budget events */
            job_id: string | null;
            /** @description `pending` (its next attempt is due, or in flight), `delivered` (an attempt got a 2xx) or `failed` (retries ran out) */
            state: string;
            /** @description How many attempts were made, redeliveries included */
            attempts: number;
            /** @description The HTTP status its latest attempt got; null before any, or when none came */
            last_status_code: number | null;
            /** @description What went wrong in its latest attempt (no answer, or a redirect, not followed); null otherwise */
            last_error: string | null;
            /** @description While `pending`, when its next attempt is due, ISO 8601 UTC; null otherwise */
            next_attempt_at: string | null;
            /** @description When the delivery was queued, ISO 8601 UTC */
            created_at: string;
            /** @description When an attempt last got a 2xx answer, ISO 8601 UTC; null until one has */
            delivered_at: string | null;
            /** @description Every attempt, in order: when, the status or error, and how long it took */
            attempt_log: {
                /** @description The attempt's number, from 1, counting every attempt of the delivery */
                n: number;
                /** @description When the attempt started, ISO 8601 UTC */
                at: string;
                /** @description The HTTP status the endpoint answered; null when none came (refused connection, timeout) */
                status_code: number | null;
                /** @description What went wrong without a status, e.g. `no response within 10 s`, or `redirects are not followed`; null otherwise */
                error: string | null;
                /** @description How long the attempt took, in milliseconds */
                duration_ms: number;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getControlPlaneMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics in Prometheus's text format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    downloadAgentCheckpoint: {
        parameters: {
            query: {
                run: string;
                path: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkpoint's bytes */
            200: {
                headers: {
                    /** @description The digest it was registered with, quoted */
                    ETag?: string;
                    /** @description `attachment` with the file name */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: NODE_REVOKED, UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NODE_REVOKED" | "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND, BLOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    connectAgent: {
        parameters: {
            query?: never;
            header: {
                /** @description `websocket` */
                Upgrade: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Switching Protocols: the socket is open */
            101: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: NODE_REVOKED, UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NODE_REVOKED" | "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    enrollAgent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The one-shot enrollment token (`sfe_…`) an admin minted for the fleet; this call spends it */
                    token: string;
                };
            };
        };
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The node id minted for the agent, `nod_` plus a lowercase ULID */
                        node_id: string;
                        /** @description The id (`flt_…`) of the fleet the token was minted for */
                        fleet_id: string;
                        /** @description That fleet's name */
                        fleet: string;
                        /** @description The agent's credential, a JWT: send it as `Authorization: Bearer` on the agent routes */
                        credential: string;
                        /** @description When the credential expires, ISO 8601 UTC; renewed over the agent's socket while it is connected */
                        expires_at: string;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: ENROLLMENT_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "ENROLLMENT_TOKEN_INVALID";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    listAuditEntries: {
        parameters: {
            query?: {
                actor?: string;
                action?: string;
                target?: string;
                since?: string;
                until?: string;
                limit?: number;
                cursor?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The matching entries, newest first */
                        entries: components["schemas"]["AuditEntry"][];
                        /** @description The `cursor` of the next page; null on the last page */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    startDeviceLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The secret the CLI polls with (`sfd_…`): whoever holds it receives the token */
                        device_code: string;
                        /** @description The code the person checks and approves on the page, `ABCD-EFGH` */
                        user_code: string;
                        /** @description The page where the person approves the code (`…/device`) */
                        verification_uri: string;
                        /** @description The same page with the code filled in (`?user_code=…`) */
                        verification_uri_complete: string;
                        /** @description Seconds until the codes expire (600) */
                        expires_in: number;
                        /** @description Seconds to wait between polls of `POST /v1/auth/device/token` */
                        interval: number;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    pollDeviceLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The `device_code` (`sfd_…`) that POST /v1/auth/device answered; whoever holds it gets the token */
                    device_code: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A new personal access token (`sfp_…`) of the approver, never expiring; shown only here */
                        token: string;
                        /** @description The name of the user who approved the login: the token is theirs */
                        user: string;
                        /** @description The token's name, `sf device login <YYYY-MM-DD>` */
                        name: string;
                    };
                };
            };
            /** @description 400: AUTHORIZATION_PENDING, SLOW_DOWN, ACCESS_DENIED, EXPIRED_TOKEN, INVALID_GRANT, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "ACCESS_DENIED" | "AUTHORIZATION_PENDING" | "BAD_REQUEST" | "EXPIRED_TOKEN" | "INVALID_GRANT" | "SLOW_DOWN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getBlob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                digest: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bytes (none on HEAD) */
            200: {
                headers: {
                    /** @description The blob's size in bytes */
                    "Content-Length"?: string;
                    /** @description `"<digest>"` */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description 400: INVALID_DIGEST, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: BLOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    putBlob: {
        parameters: {
            query?: never;
            header: {
                /** @description The body's exact size in bytes: the bytes are streamed to storage, never buffered */
                "Content-Length": string;
            };
            path: {
                digest: string;
            };
            cookie?: never;
        };
        /** @description The blob's bytes */
        requestBody: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description The digest was stored already (`created: false`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The blob's size in bytes */
                        size: number;
                        /** @description True when this request stored the blob; false when it was stored already (nothing rewritten) */
                        created: boolean;
                    };
                };
            };
            /** @description Stored: a new blob */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The blob's size in bytes */
                        size: number;
                        /** @description True when this request stored the blob; false when it was stored already (nothing rewritten) */
                        created: boolean;
                    };
                };
            };
            /** @description 400: INVALID_DIGEST, BLOB_DIGEST_MISMATCH, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "BLOB_DIGEST_MISMATCH" | "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 411: LENGTH_REQUIRED */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "LENGTH_REQUIRED";
                        };
                    };
                };
            };
            /** @description 413: BLOB_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    startBlobUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                digest: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The blob's size in bytes */
                    size: number;
                };
            };
        };
        responses: {
            /** @description The blob exists, goes through the Worker, or an open upload is resumed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description `exists`: the blob is stored already, there is nothing to send
                         * @constant
                         */
                        mode: "exists";
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The stored blob's size in bytes */
                        size: number;
                    } | {
                        /**
                         * @description `worker`: no direct upload is configured and the blob fits a request; PUT it to /v1/blobs/{digest}
                         * @constant
                         */
                        mode: "worker";
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The blob's size in bytes, as asked for */
                        size: number;
                    } | {
                        /**
                         * @description `multipart`: PUT each part to its URL, report it, then complete the upload
                         * @constant
                         */
                        mode: "multipart";
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The blob's size in bytes, as asked for */
                        size: number;
                        /** @description The upload's id, `upl_` plus a lowercase ULID */
                        upload_id: string;
                        /** @description Every part's size in bytes but the last's (the remainder): 16 MiB, or more for a huge blob */
                        part_size: number;
                        /** @description How many parts the blob is cut into, numbered 1 to `part_count` (an empty blob has one) */
                        part_count: number;
                        /** @description The parts an earlier, interrupted attempt reported stored: send only the others */
                        stored: {
                            /** @description The part's number, from 1 */
                            number: number;
                            /** @description The part's size in bytes, as reported */
                            size: number;
                            /** @description The ETag the part's presigned PUT answered, quotes kept as S3 sent them */
                            etag: string;
                            /** @description sha256 of the part's bytes as the client sent them, in 64 lowercase hex characters */
                            sha256: string;
                        }[];
                        /** @description One presigned PUT URL per part, 1 to `part_count`, each good until `expires_at` */
                        urls: {
                            /** @description The part's number, from 1 */
                            number: number;
                            /**
                             * Format: uri
                             * @description A presigned S3 URL that takes one PUT of exactly that part's bytes
                             */
                            url: string;
                        }[];
                        /** @description When the URLs expire (an hour after this answer), ISO 8601 UTC; ask again for fresh ones */
                        expires_at: string;
                        /** @description True when your open upload of this digest was resumed (200); false for a new one (201) */
                        resumed: boolean;
                    };
                };
            };
            /** @description A new multipart upload */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description `exists`: the blob is stored already, there is nothing to send
                         * @constant
                         */
                        mode: "exists";
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The stored blob's size in bytes */
                        size: number;
                    } | {
                        /**
                         * @description `worker`: no direct upload is configured and the blob fits a request; PUT it to /v1/blobs/{digest}
                         * @constant
                         */
                        mode: "worker";
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The blob's size in bytes, as asked for */
                        size: number;
                    } | {
                        /**
                         * @description `multipart`: PUT each part to its URL, report it, then complete the upload
                         * @constant
                         */
                        mode: "multipart";
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The blob's size in bytes, as asked for */
                        size: number;
                        /** @description The upload's id, `upl_` plus a lowercase ULID */
                        upload_id: string;
                        /** @description Every part's size in bytes but the last's (the remainder): 16 MiB, or more for a huge blob */
                        part_size: number;
                        /** @description How many parts the blob is cut into, numbered 1 to `part_count` (an empty blob has one) */
                        part_count: number;
                        /** @description The parts an earlier, interrupted attempt reported stored: send only the others */
                        stored: {
                            /** @description The part's number, from 1 */
                            number: number;
                            /** @description The part's size in bytes, as reported */
                            size: number;
                            /** @description The ETag the part's presigned PUT answered, quotes kept as S3 sent them */
                            etag: string;
                            /** @description sha256 of the part's bytes as the client sent them, in 64 lowercase hex characters */
                            sha256: string;
                        }[];
                        /** @description One presigned PUT URL per part, 1 to `part_count`, each good until `expires_at` */
                        urls: {
                            /** @description The part's number, from 1 */
                            number: number;
                            /**
                             * Format: uri
                             * @description A presigned S3 URL that takes one PUT of exactly that part's bytes
                             */
                            url: string;
                        }[];
                        /** @description When the URLs expire (an hour after this answer), ISO 8601 UTC; ask again for fresh ones */
                        expires_at: string;
                        /** @description True when your open upload of this digest was resumed (200); false for a new one (201) */
                        resumed: boolean;
                    };
                };
            };
            /** @description 400: INVALID_DIGEST, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: BLOB_TOO_LARGE, PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_TOO_LARGE" | "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    abortBlobUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                digest: string;
                upload: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The id of the upload given up, `upl_…` */
                        aborted: string;
                    };
                };
            };
            /** @description 400: INVALID_DIGEST, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: UPLOAD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UPLOAD_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    completeBlobUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                digest: string;
                upload: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The blob's digest, `sha256:` plus 64 lowercase hex characters */
                        digest: string;
                        /** @description The blob's size in bytes */
                        size: number;
                        /** @description True when this request stored the blob; false when it was stored already (nothing rewritten) */
                        created: boolean;
                    };
                };
            };
            /** @description 400: INVALID_DIGEST, BLOB_DIGEST_MISMATCH, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "BLOB_DIGEST_MISMATCH" | "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: UPLOAD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UPLOAD_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: UPLOAD_INCOMPLETE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UPLOAD_INCOMPLETE";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    reportBlobUploadPart: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                digest: string;
                upload: string;
                n: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The part's size in bytes: `part_size`, or the remainder for the last part */
                    size: number;
                    /** @description The ETag the part's presigned PUT answered, quotes included, as S3 sent it */
                    etag: string;
                    /** @description sha256 of the part's bytes as sent, in 64 lowercase hex characters */
                    sha256: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The part's number, as in the URL */
                        number: number;
                        /** @description How many of the upload's parts are now recorded as stored */
                        stored: number;
                    };
                };
            };
            /** @description 400: INVALID_DIGEST, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: UPLOAD_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UPLOAD_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getCapsule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The capsule new jobs get: `bootstrap.sh` and `runner.pyz`, each the digest of its blob */
                        files: {
                            "bootstrap.sh": components["schemas"]["Digest"];
                            "runner.pyz": components["schemas"]["Digest"];
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    publishCapsule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Exactly `bootstrap.sh` and `runner.pyz`, each the digest of a blob already uploaded */
                    files: {
                        "bootstrap.sh": components["schemas"]["Digest"];
                        "runner.pyz": components["schemas"]["Digest"];
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The capsule new jobs get: `bootstrap.sh` and `runner.pyz`, each the digest of its blob */
                        files: {
                            "bootstrap.sh": components["schemas"]["Digest"];
                            "runner.pyz": components["schemas"]["Digest"];
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 422: BLOB_MISSING */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_MISSING";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getCatalog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The catalog */
            200: {
                headers: {
                    /** @description The catalog digest, quoted */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        digest: components["schemas"]["Digest"];
                        /** @description Every published recipe, by name */
                        recipes: {
                            /** @description The recipe's name, `framework/method`, e.g. `python/charlm` */
                            name: string;
                            /** @description Its highest published version by semver precedence */
                            latest: string;
                            /** @description Its published versions, ascending by semver (pre-releases before their release) */
                            versions: {
                                /** @description The recipe's name, `framework/method`, e.g. `python/charlm` */
                                name: string;
                                /** @description The version published (semver `X.Y.Z`); a published version never changes */
                                version: string;
                                /**
                                 * @description What the method does, free text
                                 * @default
                                 */
                                description: string;
                                /** @description The frameworks, versions and runtimes this version is published for */
                                frameworks: {
                                    /** @description The framework, e.g. `python` or `torch`: a job's `framework.kind` */
                                    kind: string;
                                    /** @description The framework versions it is published for, e.g. `3` or `1.13`: a job's `framework.version` */
                                    versions: string[];
                                    /** @description The runtime it runs on, e.g. `python3-stdlib` or `torch-cpu`: a job's `framework.runtime_id` */
                                    runtime_id: string;
                                    /**
                                     * @description The image a job that names none runs (no allowlist applies to it); null: no default
                                     * @default null
                                     */
                                    image: string | null;
                                }[];
                                /**
                                 * @description The hyperparameters a job may set, by name: type, default and bounds
                                 * @default {}
                                 */
                                params: {
                                    [key: string]: {
                                        /**
                                         * @description The parameter takes an integer
                                         * @constant
                                         */
                                        type: "int";
                                        /** @description Its value when a job sets none; omitted: every job must set it */
                                        default?: number;
                                        /** @description The smallest value a job may set */
                                        min?: number;
                                        /** @description The largest value a job may set */
                                        max?: number;
                                        /**
                                         * @description What the parameter does, free text
                                         * @default
                                         */
                                        doc: string;
                                    } | {
                                        /**
                                         * @description The parameter takes a number
                                         * @constant
                                         */
                                        type: "float";
                                        /** @description Its value when a job sets none; omitted: every job must set it */
                                        default?: number;
                                        /** @description The smallest value a job may set */
                                        min?: number;
                                        /** @description The largest value a job may set */
                                        max?: number;
                                        /**
                                         * @description What the parameter does, free text
                                         * @default
                                         */
                                        doc: string;
                                    } | {
                                        /**
                                         * @description The parameter takes `true` or `false`
                                         * @constant
                                         */
                                        type: "bool";
                                        /** @description Its value when a job sets none; omitted: every job must set it */
                                        default?: boolean;
                                        /**
                                         * @description What the parameter does, free text
                                         * @default
                                         */
                                        doc: string;
                                    } | {
                                        /**
                                         * @description The parameter takes a string
                                         * @constant
                                         */
                                        type: "string";
                                        /** @description Its value when a job sets none; omitted: every job must set it */
                                        default?: string;
                                        /** @description The values a job may set; omitted: any string */
                                        choices?: string[];
                                        /**
                                         * @description What the parameter does, free text
                                         * @default
                                         */
                                        doc: string;
                                    };
                                };
                                /** @description How a run starts it: a `script` in the experiment or a `python` module */
                                entrypoint: {
                                    /**
                                     * @description A script in the job's experiment, run with `bash`
                                     * @constant
                                     */
                                    kind: "script";
                                    /** @description The script's path in the experiment's folder, e.g. `train.sh` */
                                    path: string;
                                    /**
                                     * @description Distributed: `per_node` starts one process per node, `per_gpu` one per GPU; omitted: not distributed
                                     * @enum {string}
                                     */
                                    processes?: "per_node" | "per_gpu";
                                } | {
                                    /**
                                     * @description A Python module shipped with the recipe, run with `python -m`
                                     * @constant
                                     */
                                    kind: "python";
                                    /** @description The module to run, e.g. `charlm.train` */
                                    module: string;
                                    /**
                                     * @description Distributed: `per_node` starts one process per node, `per_gpu` one per GPU; omitted: not distributed
                                     * @enum {string}
                                     */
                                    processes?: "per_node" | "per_gpu";
                                };
                                /**
                                 * @description `true`: on `docker` and `kuberay` fleets a job needs an image, its own or the framework's default
                                 * @default false
                                 */
                                requires_image: boolean;
                                /**
                                 * @description Files `sf new` writes into a new experiment: path → content
                                 * @default {}
                                 */
                                template: {
                                    [key: string]: string;
                                };
                                digest: components["schemas"]["Digest"];
                                /** @description When the version was published, ISO 8601 UTC */
                                published_at: string;
                                /** @description Who published it: the admin's user name, or `system` for the built-in recipes */
                                published_by: string;
                            }[];
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getRecipe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                framework: string;
                method: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The recipe's name, `framework/method`, e.g. `python/charlm` */
                        name: string;
                        /** @description Its highest published version by semver precedence */
                        latest: string;
                        /** @description Its published versions, ascending by semver (pre-releases before their release) */
                        versions: {
                            /** @description The recipe's name, `framework/method`, e.g. `python/charlm` */
                            name: string;
                            /** @description The version published (semver `X.Y.Z`); a published version never changes */
                            version: string;
                            /**
                             * @description What the method does, free text
                             * @default
                             */
                            description: string;
                            /** @description The frameworks, versions and runtimes this version is published for */
                            frameworks: {
                                /** @description The framework, e.g. `python` or `torch`: a job's `framework.kind` */
                                kind: string;
                                /** @description The framework versions it is published for, e.g. `3` or `1.13`: a job's `framework.version` */
                                versions: string[];
                                /** @description The runtime it runs on, e.g. `python3-stdlib` or `torch-cpu`: a job's `framework.runtime_id` */
                                runtime_id: string;
                                /**
                                 * @description The image a job that names none runs (no allowlist applies to it); null: no default
                                 * @default null
                                 */
                                image: string | null;
                            }[];
                            /**
                             * @description The hyperparameters a job may set, by name: type, default and bounds
                             * @default {}
                             */
                            params: {
                                [key: string]: {
                                    /**
                                     * @description The parameter takes an integer
                                     * @constant
                                     */
                                    type: "int";
                                    /** @description Its value when a job sets none; omitted: every job must set it */
                                    default?: number;
                                    /** @description The smallest value a job may set */
                                    min?: number;
                                    /** @description The largest value a job may set */
                                    max?: number;
                                    /**
                                     * @description What the parameter does, free text
                                     * @default
                                     */
                                    doc: string;
                                } | {
                                    /**
                                     * @description The parameter takes a number
                                     * @constant
                                     */
                                    type: "float";
                                    /** @description Its value when a job sets none; omitted: every job must set it */
                                    default?: number;
                                    /** @description The smallest value a job may set */
                                    min?: number;
                                    /** @description The largest value a job may set */
                                    max?: number;
                                    /**
                                     * @description What the parameter does, free text
                                     * @default
                                     */
                                    doc: string;
                                } | {
                                    /**
                                     * @description The parameter takes `true` or `false`
                                     * @constant
                                     */
                                    type: "bool";
                                    /** @description Its value when a job sets none; omitted: every job must set it */
                                    default?: boolean;
                                    /**
                                     * @description What the parameter does, free text
                                     * @default
                                     */
                                    doc: string;
                                } | {
                                    /**
                                     * @description The parameter takes a string
                                     * @constant
                                     */
                                    type: "string";
                                    /** @description Its value when a job sets none; omitted: every job must set it */
                                    default?: string;
                                    /** @description The values a job may set; omitted: any string */
                                    choices?: string[];
                                    /**
                                     * @description What the parameter does, free text
                                     * @default
                                     */
                                    doc: string;
                                };
                            };
                            /** @description How a run starts it: a `script` in the experiment or a `python` module */
                            entrypoint: {
                                /**
                                 * @description A script in the job's experiment, run with `bash`
                                 * @constant
                                 */
                                kind: "script";
                                /** @description The script's path in the experiment's folder, e.g. `train.sh` */
                                path: string;
                                /**
                                 * @description Distributed: `per_node` starts one process per node, `per_gpu` one per GPU; omitted: not distributed
                                 * @enum {string}
                                 */
                                processes?: "per_node" | "per_gpu";
                            } | {
                                /**
                                 * @description A Python module shipped with the recipe, run with `python -m`
                                 * @constant
                                 */
                                kind: "python";
                                /** @description The module to run, e.g. `charlm.train` */
                                module: string;
                                /**
                                 * @description Distributed: `per_node` starts one process per node, `per_gpu` one per GPU; omitted: not distributed
                                 * @enum {string}
                                 */
                                processes?: "per_node" | "per_gpu";
                            };
                            /**
                             * @description `true`: on `docker` and `kuberay` fleets a job needs an image, its own or the framework's default
                             * @default false
                             */
                            requires_image: boolean;
                            /**
                             * @description Files `sf new` writes into a new experiment: path → content
                             * @default {}
                             */
                            template: {
                                [key: string]: string;
                            };
                            digest: components["schemas"]["Digest"];
                            /** @description When the version was published, ISO 8601 UTC */
                            published_at: string;
                            /** @description Who published it: the admin's user name, or `system` for the built-in recipes */
                            published_by: string;
                        }[];
                        catalog_digest: components["schemas"]["Digest"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    publishRecipe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The recipe's name, `framework/method`, e.g. `python/charlm` */
                    name: string;
                    /** @description The version published (semver `X.Y.Z`); a published version never changes */
                    version: string;
                    /**
                     * @description What the method does, free text
                     * @default
                     */
                    description?: string;
                    /** @description The frameworks, versions and runtimes this version is published for */
                    frameworks: {
                        /** @description The framework, e.g. `python` or `torch`: a job's `framework.kind` */
                        kind: string;
                        /** @description The framework versions it is published for, e.g. `3` or `1.13`: a job's `framework.version` */
                        versions: string[];
                        /** @description The runtime it runs on, e.g. `python3-stdlib` or `torch-cpu`: a job's `framework.runtime_id` */
                        runtime_id: string;
                        /**
                         * @description The image a job that names none runs (no allowlist applies to it); null: no default
                         * @default null
                         */
                        image?: string | null;
                    }[];
                    /**
                     * @description The hyperparameters a job may set, by name: type, default and bounds
                     * @default {}
                     */
                    params?: {
                        [key: string]: {
                            /**
                             * @description The parameter takes an integer
                             * @constant
                             */
                            type: "int";
                            /** @description Its value when a job sets none; omitted: every job must set it */
                            default?: number;
                            /** @description The smallest value a job may set */
                            min?: number;
                            /** @description The largest value a job may set */
                            max?: number;
                            /**
                             * @description What the parameter does, free text
                             * @default
                             */
                            doc?: string;
                        } | {
                            /**
                             * @description The parameter takes a number
                             * @constant
                             */
                            type: "float";
                            /** @description Its value when a job sets none; omitted: every job must set it */
                            default?: number;
                            /** @description The smallest value a job may set */
                            min?: number;
                            /** @description The largest value a job may set */
                            max?: number;
                            /**
                             * @description What the parameter does, free text
                             * @default
                             */
                            doc?: string;
                        } | {
                            /**
                             * @description The parameter takes `true` or `false`
                             * @constant
                             */
                            type: "bool";
                            /** @description Its value when a job sets none; omitted: every job must set it */
                            default?: boolean;
                            /**
                             * @description What the parameter does, free text
                             * @default
                             */
                            doc?: string;
                        } | {
                            /**
                             * @description The parameter takes a string
                             * @constant
                             */
                            type: "string";
                            /** @description Its value when a job sets none; omitted: every job must set it */
                            default?: string;
                            /** @description The values a job may set; omitted: any string */
                            choices?: string[];
                            /**
                             * @description What the parameter does, free text
                             * @default
                             */
                            doc?: string;
                        };
                    };
                    /** @description How a run starts it: a `script` in the experiment or a `python` module */
                    entrypoint: {
                        /**
                         * @description A script in the job's experiment, run with `bash`
                         * @constant
                         */
                        kind: "script";
                        /** @description The script's path in the experiment's folder, e.g. `train.sh` */
                        path: string;
                        /**
                         * @description Distributed: `per_node` starts one process per node, `per_gpu` one per GPU; omitted: not distributed
                         * @enum {string}
                         */
                        processes?: "per_node" | "per_gpu";
                    } | {
                        /**
                         * @description A Python module shipped with the recipe, run with `python -m`
                         * @constant
                         */
                        kind: "python";
                        /** @description The module to run, e.g. `charlm.train` */
                        module: string;
                        /**
                         * @description Distributed: `per_node` starts one process per node, `per_gpu` one per GPU; omitted: not distributed
                         * @enum {string}
                         */
                        processes?: "per_node" | "per_gpu";
                    };
                    /**
                     * @description `true`: on `docker` and `kuberay` fleets a job needs an image, its own or the framework's default
                     * @default false
                     */
                    requires_image?: boolean;
                    /**
                     * @description Files `sf new` writes into a new experiment: path → content
                     * @default {}
                     */
                    template?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description Identical content was already published: nothing changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description `true`: published now (201); `false`: the same content was published already (200) */
                        created: boolean;
                        /** @description The version as stored: the fields sent, its `digest`, `published_at` and `published_by` */
                        recipe: {
                            /** @description The recipe's name, `framework/method`, e.g. `python/charlm` */
                            name: string;
                            /** @description The version (semver `X.Y.Z`); a published version never changes */
                            version: string;
                            /** @description The digest (`sha256:…`) of the fields published; a job's `recipe.digest` must match it */
                            digest: string;
                        };
                    };
                };
            };
            /** @description Published */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description `true`: published now (201); `false`: the same content was published already (200) */
                        created: boolean;
                        /** @description The version as stored: the fields sent, its `digest`, `published_at` and `published_by` */
                        recipe: {
                            /** @description The recipe's name, `framework/method`, e.g. `python/charlm` */
                            name: string;
                            /** @description The version (semver `X.Y.Z`); a published version never changes */
                            version: string;
                            /** @description The digest (`sha256:…`) of the fields published; a job's `recipe.digest` must match it */
                            digest: string;
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 409: ALREADY_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "ALREADY_EXISTS";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listFleets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every fleet, by name */
                        fleets: components["schemas"]["Fleet"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    createFleet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The fleet's name: lowercase letters, digits and `-`, 2–63 characters, a letter first */
                    name: string;
                    /**
                     * @description How its agents run jobs: `process`, `docker`, `kuberay` or `slurm`
                     * @enum {string}
                     */
                    kind: "process" | "docker" | "kuberay" | "slurm";
                    /**
                     * @description What the fleet is, free text
                     * @default
                     */
                    description?: string;
                    /**
                     * @description Image patterns jobs may run: `registry/org/*`, `name:tag`, `name@sha256:…`; empty: catalog defaults only
                     * @default []
                     */
                    image_allowlist?: string[];
                    /**
                     * @description When each GPU series runs jobs: they start only inside a window and stop at its close; none: always
                     * @default []
                     */
                    windows?: {
                        /** @description The GPU series it governs; omitted: every series of the fleet */
                        series?: string;
                        /** @description The days of the week it opens on, 0 = Sunday */
                        days: number[];
                        /** @description When it opens, `HH:MM` in `tz` */
                        start: string;
                        /** @description When it closes, `HH:MM` in `tz`, up to `24:00`; at or before `start`: the next day */
                        end: string;
                        /**
                         * @description The IANA time zone of `start` and `end`, e.g. `Europe/Berlin`
                         * @default UTC
                         */
                        tz?: string;
                    }[];
                    /**
                     * @default {
                     *       "env": {},
                     *       "rendezvous_timeout_seconds": 300,
                     *       "port_range": null
                     *     }
                     */
                    network?: components["schemas"]["FleetNetworkInput"];
                    /**
                     * @description While the HuggingFace Hub cannot be reached: `refuse` jobs naming a repo (503) or `admit` them unchecked
                     * @default refuse
                     * @enum {string}
                     */
                    hf_unavailable?: "refuse" | "admit";
                    /**
                     * @description At most this many preemptions start in the fleet per minute; 0: none
                     * @default 10
                     */
                    preemptions_per_minute?: number;
                    /**
                     * @description What a job's `fleet_selector` matches: key → value, e.g. `region`
                     * @default {}
                     */
                    labels?: {
                        [key: string]: string;
                    };
                    /**
                     * @description The fleet's failure rules and per-class retry actions; omitted: the built-in ones
                     * @default {
                     *       "rules": [],
                     *       "actions": {}
                     *     }
                     */
                    diagnosis?: {
                        /**
                         * @description Rules tried in order before the built-in ones; the earliest line or exit one matches decides
                         * @default []
                         */
                        rules?: {
                            /** @description A JavaScript regular expression over one log line; a leading `(?i)` ignores case */
                            pattern?: string;
                            /** @description Instead of `pattern`: a rank's exit code the rule matches */
                            exit_code?: number;
                            /**
                             * @description The failure class a match gives the run, e.g. `NETWORK`
                             * @enum {string}
                             */
                            class: "CUDA_OOM" | "HOST_OOM" | "NCCL_TIMEOUT" | "NCCL_ERROR" | "GPU_HARDWARE" | "CUDA_ERROR" | "NAN_LOSS" | "HANG" | "DATALOADER" | "DISK_FULL" | "IMPORT_ERROR" | "FILE_NOT_FOUND" | "HF_ACCESS" | "NETWORK" | "SIGNAL" | "TIMEOUT" | "NODE_LOST" | "USER_EXCEPTION" | "UNKNOWN";
                            /** @description What to change, instead of the class's hint */
                            hint?: string;
                            /**
                             * @description What is done about a match (`retry`, `no_retry`, …), instead of the class's action
                             * @enum {string}
                             */
                            action?: "retry" | "retry_elsewhere" | "retry_if_infra" | "no_retry";
                        }[];
                        /**
                         * @description Per failure class, the action that replaces the built-in one on this fleet
                         * @default {}
                         */
                        actions?: {
                            [key: string]: "retry" | "retry_elsewhere" | "retry_if_infra" | "no_retry";
                        };
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        fleet: components["schemas"]["Fleet"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 409: ALREADY_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "ALREADY_EXISTS";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getFleet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The fleet's id, `flt_` plus a lowercase ULID */
                        fleet_id: string;
                        /** @description True while the fleet drains for maintenance: submits are refused */
                        draining: boolean;
                        /** @description Why it drains, the admin's note; null when it is not draining */
                        drain_note: string | null;
                        /** @description When each GPU series may run jobs: they start only inside a window and are stopped when it closes (queued again when it reopens); a series no window names is always open */
                        windows: {
                            /** @description The GPU series it governs; omitted: every series of the fleet */
                            series?: string;
                            /** @description The days of the week it opens on, 0 = Sunday */
                            days: number[];
                            /** @description When it opens, `HH:MM` in `tz` */
                            start: string;
                            /** @description When it closes, `HH:MM` in `tz`, up to `24:00`; at or before `start`: the next day */
                            end: string;
                            /**
                             * @description The IANA time zone of `start` and `end`, e.g. `Europe/Berlin`
                             * @default UTC
                             */
                            tz: string;
                        }[];
                        /** @description Its nodes, each with its GPUs and the runs holding them */
                        nodes: components["schemas"]["Node"][];
                        /** @description Its GPUs and jobs, counted now */
                        totals: {
                            /** @description GPUs on all its nodes */
                            gpus: number;
                            /** @description GPUs held by runs */
                            allocated: number;
                            /** @description GPUs no run holds, `gpus` minus `allocated` (those of cordoned or lost nodes included) */
                            free: number;
                            /** @description Its jobs in `QUEUED` */
                            queued: number;
                            /** @description Its jobs holding GPUs: in `SUBMITTED`, `PENDING` or `RUNNING` */
                            running: number;
                        };
                        /** @description Its `QUEUED` jobs in queue order (by admission: a job queued again keeps its place), which is not the order they start in; each with why it waits */
                        queue: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The id (`usr_…`) of its owner */
                            user_id: string;
                            /** @description Its priority within its class, higher first */
                            priority: number;
                            /** @description Its priority class (`lifecycle.priority_class`, default `normal`) */
                            priority_class: string;
                            /** @description The team it runs for, settled at admission; null: its submitter was in no team */
                            team: string | null;
                            /** @description GPUs it needs in all */
                            gpus: number;
                            /** @description Why it is not running yet */
                            pending_reasons: {
                                /**
                                 * @description What holds it back, a stable code, e.g. `CAPACITY`, `QUOTA_GPUS`, `PREEMPTING`
                                 * @enum {string}
                                 */
                                code: "NO_NODE_OF_SERIES" | "CAPACITY" | "GANG_INCOMPLETE" | "QUOTA_GPUS" | "QUOTA_GPU_HOURS" | "NO_AGENT_RUNTIME" | "WINDOW_CLOSED" | "FLEET_DRAINING" | "PREVIOUS_RUN_STOPPING" | "RUNTIME_WAITING" | "PREEMPTING" | "PREEMPTION_STALLED" | "TEAM_GUARANTEE_FULL" | "TEAM_BORROW_LIMIT" | "TEAM_LEND_LIMIT" | "BUDGET_EXHAUSTED";
                                /** @description The same reason in words, for people */
                                message: string;
                                /**
                                 * @description Flat facts for programs (series, limits, counts, times) by name; which ones depend on `code`
                                 * @default {}
                                 */
                                details: {
                                    [key: string]: string | number | boolean | null;
                                };
                            }[];
                        }[];
                        fleet: components["schemas"]["Fleet"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    updateFleet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What the fleet is, free text */
                    description?: string;
                    /** @description Replaces the image patterns jobs may run; `[]`: only the catalog's default images */
                    image_allowlist?: string[];
                    /** @description Replaces the windows that gate each GPU series (its jobs start only inside one); `[]`: always open */
                    windows?: {
                        /** @description The GPU series it governs; omitted: every series of the fleet */
                        series?: string;
                        /** @description The days of the week it opens on, 0 = Sunday */
                        days: number[];
                        /** @description When it opens, `HH:MM` in `tz` */
                        start: string;
                        /** @description When it closes, `HH:MM` in `tz`, up to `24:00`; at or before `start`: the next day */
                        end: string;
                        /**
                         * @description The IANA time zone of `start` and `end`, e.g. `Europe/Berlin`
                         * @default UTC
                         */
                        tz?: string;
                    }[];
                    network?: components["schemas"]["FleetNetworkInput"];
                    /**
                     * @description While the HuggingFace Hub cannot be reached: `refuse` jobs naming a repo (503) or `admit` them unchecked
                     * @enum {string}
                     */
                    hf_unavailable?: "refuse" | "admit";
                    /** @description At most this many preemptions start in the fleet per minute; 0: none */
                    preemptions_per_minute?: number;
                    /** @description Replaces what a job's `fleet_selector` matches: key → value; `{}` removes every label */
                    labels?: {
                        [key: string]: string;
                    };
                    /** @description Replaces the fleet's failure rules and per-class retry actions; `{}`: back to the built-in ones */
                    diagnosis?: {
                        /**
                         * @description Rules tried in order before the built-in ones; the earliest line or exit one matches decides
                         * @default []
                         */
                        rules?: {
                            /** @description A JavaScript regular expression over one log line; a leading `(?i)` ignores case */
                            pattern?: string;
                            /** @description Instead of `pattern`: a rank's exit code the rule matches */
                            exit_code?: number;
                            /**
                             * @description The failure class a match gives the run, e.g. `NETWORK`
                             * @enum {string}
                             */
                            class: "CUDA_OOM" | "HOST_OOM" | "NCCL_TIMEOUT" | "NCCL_ERROR" | "GPU_HARDWARE" | "CUDA_ERROR" | "NAN_LOSS" | "HANG" | "DATALOADER" | "DISK_FULL" | "IMPORT_ERROR" | "FILE_NOT_FOUND" | "HF_ACCESS" | "NETWORK" | "SIGNAL" | "TIMEOUT" | "NODE_LOST" | "USER_EXCEPTION" | "UNKNOWN";
                            /** @description What to change, instead of the class's hint */
                            hint?: string;
                            /**
                             * @description What is done about a match (`retry`, `no_retry`, …), instead of the class's action
                             * @enum {string}
                             */
                            action?: "retry" | "retry_elsewhere" | "retry_if_infra" | "no_retry";
                        }[];
                        /**
                         * @description Per failure class, the action that replaces the built-in one on this fleet
                         * @default {}
                         */
                        actions?: {
                            [key: string]: "retry" | "retry_elsewhere" | "retry_if_infra" | "no_retry";
                        };
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        fleet: components["schemas"]["Fleet"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    createEnrollmentToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        /** @description Optional; read only when `Content-Type` contains `json` */
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @description Minutes until the token expires if no agent has spent it, at most 7 days
                     * @default 60
                     */
                    ttl_minutes?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The token (`sfe_…`), shown only here: an agent trades it at `POST /v1/agents/enroll` */
                        token: string;
                        /** @description The fleet's name */
                        fleet: string;
                        /** @description When it expires if no agent has spent it, ISO 8601 UTC */
                        expires_at: string;
                        /** @description Always `true`: the first agent to enroll with it spends it */
                        one_shot: boolean;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getFleetMaintenance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The fleet's name */
                        fleet: string;
                        /** @description `true` while the fleet drains, as its Fleet DO holds it */
                        draining: boolean;
                        /** @description Why it drains; null when it does not */
                        note: string | null;
                        /** @description How many of the fleet's jobs are `QUEUED` */
                        queued: number;
                        /** @description How many of the fleet's jobs are `SUBMITTED`, `PENDING` or `RUNNING` */
                        running: number;
                        /** @description Jobs (ids) the drain paused while they ran (their runs stopped, checkpointing), still `PAUSED`, in queue order */
                        paused: string[];
                        /** @description Jobs (ids) the drain held while they queued, still `PAUSED`, in queue order */
                        held: string[];
                        /** @description What still holds GPUs while the fleet drains, and why; maintenance can start once it is empty */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                        /** @description Jobs (ids) that ending the drain queued again, in queue order; empty except in the resume answer */
                        resumed: string[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    drainFleet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Why the fleet drains: refused submits are told it (`FLEET_DRAINING`); a new drain replaces it */
                    note: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        fleet: components["schemas"]["Fleet"];
                        /** @description Jobs (ids) the drain paused while they ran (their runs stopped, checkpointing), still `PAUSED`, in queue order */
                        paused: string[];
                        /** @description Jobs (ids) the drain held while they queued, still `PAUSED`, in queue order */
                        held: string[];
                        /** @description What still holds GPUs while the fleet drains, and why; maintenance can start once it is empty */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                        /** @description Jobs (ids) that ending the drain queued again, in queue order; empty except in the resume answer */
                        resumed: string[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    resumeFleet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        fleet: components["schemas"]["Fleet"];
                        /** @description Jobs (ids) the drain paused while they ran (their runs stopped, checkpointing), still `PAUSED`, in queue order */
                        paused: string[];
                        /** @description Jobs (ids) the drain held while they queued, still `PAUSED`, in queue order */
                        held: string[];
                        /** @description What still holds GPUs while the fleet drains, and why; maintenance can start once it is empty */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                        /** @description Jobs (ids) that ending the drain queued again, in queue order; empty except in the resume answer */
                        resumed: string[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listFleetNodes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every node of the fleet, live from its Fleet DO */
                        nodes: components["schemas"]["Node"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    registerFleetNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The node's name in the fleet; registering a name again updates that node */
                    name: string;
                    /** @description The series of its GPUs, e.g. `h100`: a job's pools run on nodes of their series */
                    series: string;
                    /** @description How many GPUs it has, numbered from 0 */
                    gpus: number;
                    /** @description How many CPUs it has; recorded, not used for placement */
                    cpus?: number;
                    /** @description Its memory in MiB; recorded, not used for placement */
                    memory_mb?: number;
                    /**
                     * @description `docker`, `kuberay`: it runs jobs with an image; `process`, `slurm`: jobs without; omitted: either
                     * @enum {string}
                     */
                    runtime?: "process" | "docker" | "kuberay" | "slurm";
                    /**
                     * @description Labels shown with the node, key → value, e.g. `rack`
                     * @default {}
                     */
                    labels?: {
                        [key: string]: string;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        node: components["schemas"]["Node"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    removeNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
                node: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The action: `cordon`, `uncordon`, `drain`, `revoke` or `remove` */
                        action: string;
                        /** @description The node as it is now; null after `remove` */
                        node: components["schemas"]["Node"] | null;
                        /** @description Jobs (ids) a `drain` stopped with a checkpoint and queued again to run elsewhere; else empty */
                        requeued: string[];
                        /** @description Jobs a `drain` leaves running there: they cannot resume, so stop them or wait */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND, NODE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "NODE_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    cordonNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
                node: string;
            };
            cookie?: never;
        };
        /** @description Optional (none, `{}` or `{ "note": "…" }`): why, for whoever looks later */
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Why, for whoever looks later: the node's `cordon_note`, and in the audit log */
                    note?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The action: `cordon`, `uncordon`, `drain`, `revoke` or `remove` */
                        action: string;
                        /** @description The node as it is now; null after `remove` */
                        node: components["schemas"]["Node"] | null;
                        /** @description Jobs (ids) a `drain` stopped with a checkpoint and queued again to run elsewhere; else empty */
                        requeued: string[];
                        /** @description Jobs a `drain` leaves running there: they cannot resume, so stop them or wait */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND, NODE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "NODE_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    drainNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
                node: string;
            };
            cookie?: never;
        };
        /** @description Optional (none, `{}` or `{ "note": "…" }`): why, for whoever looks later */
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Why, for whoever looks later: the node's `cordon_note`, and in the audit log */
                    note?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The action: `cordon`, `uncordon`, `drain`, `revoke` or `remove` */
                        action: string;
                        /** @description The node as it is now; null after `remove` */
                        node: components["schemas"]["Node"] | null;
                        /** @description Jobs (ids) a `drain` stopped with a checkpoint and queued again to run elsewhere; else empty */
                        requeued: string[];
                        /** @description Jobs a `drain` leaves running there: they cannot resume, so stop them or wait */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND, NODE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "NODE_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    revokeNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
                node: string;
            };
            cookie?: never;
        };
        /** @description Optional (none, `{}` or `{ "note": "…" }`): why, for whoever looks later */
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Why, for whoever looks later: the node's `cordon_note`, and in the audit log */
                    note?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The action: `cordon`, `uncordon`, `drain`, `revoke` or `remove` */
                        action: string;
                        /** @description The node as it is now; null after `remove` */
                        node: components["schemas"]["Node"] | null;
                        /** @description Jobs (ids) a `drain` stopped with a checkpoint and queued again to run elsewhere; else empty */
                        requeued: string[];
                        /** @description Jobs a `drain` leaves running there: they cannot resume, so stop them or wait */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND, NODE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "NODE_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    uncordonNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
                node: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The action: `cordon`, `uncordon`, `drain`, `revoke` or `remove` */
                        action: string;
                        /** @description The node as it is now; null after `remove` */
                        node: components["schemas"]["Node"] | null;
                        /** @description Jobs (ids) a `drain` stopped with a checkpoint and queued again to run elsewhere; else empty */
                        requeued: string[];
                        /** @description Jobs a `drain` leaves running there: they cannot resume, so stop them or wait */
                        blockers: {
                            /** @description The job's id (`job_…`) */
                            job_id: string;
                            /** @description The job's name */
                            name: string;
                            /** @description Its status, e.g. `RUNNING`, or `PAUSED` while its agent confirms the stop */
                            status: string;
                            /** @description Why it still holds GPUs and what to do, in words, e.g. that it cannot resume from a checkpoint */
                            reason: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND, NODE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "NODE_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listFleetSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The secrets, by name; never their values */
                        secrets: components["schemas"]["Secret"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    setFleetSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The value: 8 characters to 32 KiB, no NUL; stored sealed, and no route ever returns it */
                    value: string;
                };
            };
        };
        responses: {
            /** @description The secret's value was replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        secret: components["schemas"]["Secret"];
                    };
                };
            };
            /** @description The secret was created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        secret: components["schemas"]["Secret"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: SECRETS_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "SECRETS_UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    deleteFleetSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                fleet: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The deleted secret's name */
                        name: string;
                        /** @description Always `true` */
                        deleted: boolean;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND, SECRET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "SECRET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description Always `true`: the Worker answers and D1 is reachable
                         * @constant
                         */
                        ok: true;
                        /** @description The API's path prefix, `v1` */
                        api: string;
                        /** @description The server's clock when it answered, ISO 8601 UTC */
                        time: string;
                        /** @description The server's release, e.g. `0.1.0` (also the `starforge-server-version` header) */
                        version: string;
                        /** @description The API generation, e.g. `1` (also the `starforge-api-version` header) */
                        api_version: number;
                        /** @description The oldest `sf` release the server accepts (also the `starforge-min-cli-version` header) */
                        min_cli_version: string;
                        /** @description What the deployment was built from (`SF_BUILD`, e.g. a git sha); `dev` when unset */
                        build: string;
                        /** @description Whether D1's schema is the one this Worker was built for */
                        migrations: {
                            /** @description The last migration applied to D1, e.g. `0017_diagnosis.sql`; null when D1 was never migrated */
                            applied: string | null;
                            /** @description The newest migration this Worker was built with */
                            expected: string;
                            /** @description Whether `applied` is `expected`; false: D1 is behind this Worker or was migrated by another release */
                            up_to_date: boolean;
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    ingestArtifact: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /**
                     * @description What the artifact is: a checkpoint, a Hugging Face export, an eval report or a merged model
                     * @enum {string}
                     */
                    kind: "checkpoint" | "hf_export" | "eval_report" | "merged_model";
                    /** @description Without `digest` any path, recorded as given; with it the path it was uploaded to */
                    path: string;
                    /** @description The training step the artifact was saved at; omitted or null: none */
                    step?: number | null;
                    /** @description The file's size in bytes, checked against uploaded bytes; omitted or null: unknown, or the upload's size */
                    size_bytes?: number | null;
                    /** @description Values by name (any JSON) recorded with the artifact; omitted or null: none */
                    metrics?: {
                        [key: string]: unknown;
                    } | null;
                    digest?: components["schemas"]["Digest"];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        artifact: components["schemas"]["Artifact"];
                    };
                };
            };
            /** @description 400: BLOB_DIGEST_MISMATCH, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "BLOB_DIGEST_MISMATCH";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 422: BLOB_MISSING */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_MISSING";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    putIngestArtifactBlob: {
        parameters: {
            query: {
                digest: components["schemas"]["Digest"];
            };
            header: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
                /** @description The body's exact size in bytes: the bytes are streamed, never buffered */
                "Content-Length": string;
            };
            path: {
                run: string;
                /** @description The rest of the path, slashes included */
                path: string;
            };
            cookie?: never;
        };
        /** @description The artifact's bytes */
        requestBody: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description Those exact bytes were stored already (`created: false`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The artifact's path in the run, decoded from the URL */
                        path: string;
                        /** @description The bytes' digest, the `digest` sent */
                        digest: string;
                        /** @description Their size in bytes */
                        size: number;
                        /** @description True when the bytes were written; false when those exact bytes were stored at this path already */
                        created: boolean;
                    };
                };
            };
            /** @description Stored */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The artifact's path in the run, decoded from the URL */
                        path: string;
                        /** @description The bytes' digest, the `digest` sent */
                        digest: string;
                        /** @description Their size in bytes */
                        size: number;
                        /** @description True when the bytes were written; false when those exact bytes were stored at this path already */
                        created: boolean;
                    };
                };
            };
            /** @description 400: INVALID_DIGEST, BLOB_DIGEST_MISMATCH, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "BLOB_DIGEST_MISMATCH" | "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 411: LENGTH_REQUIRED */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "LENGTH_REQUIRED";
                        };
                    };
                };
            };
            /** @description 413: BLOB_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getIngestArtifactUploadTarget: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description The artifact's path in the run: relative, `/`-separated, without empty, `.` or `..` segments, ≤ 900 bytes */
                    path: string;
                    /** @description The file's exact size in bytes (a presigned URL is signed for exactly this size) */
                    size_bytes: number;
                    digest: components["schemas"]["Digest"];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description The method to send the bytes with: always `PUT`
                         * @constant
                         */
                        method: "PUT";
                        /**
                         * Format: uri
                         * @description Where to PUT them: this Worker's /v1/ingest/artifact/blob/{run}/{path}, or a presigned R2 URL
                         */
                        url: string;
                        /** @description Headers to send with the PUT: `X-StarForge-Token` for the Worker's URL, none for R2's */
                        headers: {
                            [key: string]: string;
                        };
                        /** @description Until when to use the target (an hour), ISO 8601 UTC; ask again for a later retry */
                        expires_at: string;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    pullIngestBlob: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path: {
                digest: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bytes */
            200: {
                headers: {
                    /** @description The blob's size in bytes */
                    "Content-Length"?: string;
                    /** @description `"<digest>"` */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description 400: INVALID_DIGEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INVALID_DIGEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND, BLOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    pullIngestCheckpoint: {
        parameters: {
            query: {
                run: string;
                path: string;
            };
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkpoint's bytes */
            200: {
                headers: {
                    /** @description The file's size in bytes */
                    "Content-Length"?: string;
                    /** @description `attachment`, with the file's name */
                    "Content-Disposition"?: string;
                    /** @description `"<digest>"`, when the checkpoint has a digest */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND, BLOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestEnvironment: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many items were accepted (/hparams: names stored; /environment: 1, or 0 when refused) */
                        accepted: number;
                        /** @description The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted) */
                        rejected: {
                            /** @description The item's index in the request's array, from 0 */
                            index: number;
                            /**
                             * @description `INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps
                             * @enum {string}
                             */
                            code: "INVALID_ITEM" | "OVER_LIMIT";
                            /** @description Why, in words, e.g. `value: Invalid input: expected number, received null` */
                            message: string;
                        }[];
                        /** @description True when this exact probe was stored already (it is kept once); absent when it was refused */
                        duplicate?: boolean;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestEnvironmentNodes: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description Up to 1024 entries `{ hostname, cpu?, gpu?, … }` (≤ 512 KiB of JSON each), stored by hostname */
                    nodes: unknown[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many items were accepted (/hparams: names stored; /environment: 1, or 0 when refused) */
                        accepted: number;
                        /** @description The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted) */
                        rejected: {
                            /** @description The item's index in the request's array, from 0 */
                            index: number;
                            /**
                             * @description `INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps
                             * @enum {string}
                             */
                            code: "INVALID_ITEM" | "OVER_LIMIT";
                            /** @description Why, in words, e.g. `value: Invalid input: expected number, received null` */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestHardware: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description Up to 256 samples `{ key, value, node_id?, worker_id?, gpu_idx?, gpu_uuid?, ts? }`, each checked alone */
                    points: unknown[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many items were accepted (/hparams: names stored; /environment: 1, or 0 when refused) */
                        accepted: number;
                        /** @description The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted) */
                        rejected: {
                            /** @description The item's index in the request's array, from 0 */
                            index: number;
                            /**
                             * @description `INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps
                             * @enum {string}
                             */
                            code: "INVALID_ITEM" | "OVER_LIMIT";
                            /** @description Why, in words, e.g. `value: Invalid input: expected number, received null` */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestHparams: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description Hyperparameters by name, each any JSON value; names not sent keep their stored value */
                    params: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many items were accepted (/hparams: names stored; /environment: 1, or 0 when refused) */
                        accepted: number;
                        /** @description The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted) */
                        rejected: {
                            /** @description The item's index in the request's array, from 0 */
                            index: number;
                            /**
                             * @description `INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps
                             * @enum {string}
                             */
                            code: "INVALID_ITEM" | "OVER_LIMIT";
                            /** @description Why, in words, e.g. `value: Invalid input: expected number, received null` */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestLifecycle: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /**
                     * @description What happened to the rank: it `started`, `succeeded` or `failed`
                     * @enum {string}
                     */
                    event: "started" | "succeeded" | "failed";
                    /** @description When it happened: ISO 8601, epoch seconds (below 1e11) or epoch milliseconds; omitted or null: receive time */
                    ts?: (string | number) | null;
                    /**
                     * @description Ours: the rank reporting. Default 0
                     * @default 0
                     */
                    rank?: number;
                    /** @description Ours: the rank's exit code; omitted or null: 0 for `succeeded`, unknown otherwise */
                    exit_code?: number | null;
                    /** @description Ours: why the rank ended, in a person's words; omitted or null: one made from the event and exit code */
                    reason?: string | null;
                    /**
                     * @description Ours: the `failed` is the infrastructure's fault (e.g. the ranks never met), not the training's. Default false
                     * @default false
                     */
                    infra?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description `applied`: the report was applied (a repeat changes nothing); `ignored`: the run was over or the rank had exited
                         * @enum {string}
                         */
                        outcome: "applied" | "ignored";
                        /** @description True when the control plane wants this workload gone (e.g. a run no longer the job's current one) */
                        stop: boolean;
                        /** @description True when the run has ended (by this report or before it) */
                        run_over: boolean;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestLogs: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description Up to 1000 strings: with `seq` one line each (≤ 16384 characters), without it terminal text (≤ 65536 each) */
                    chunks: unknown[];
                    /** @description True when the batch's last line is the last of its (rank, stream); omitted or null: false */
                    eof?: boolean | null;
                    /** @description Ours: the line number of `chunks[0]` in its (rank, stream); omitted or null: the `console` stream */
                    seq?: number | null;
                    /** @description Ours: the rank whose output this is; omitted or null: 0 */
                    rank?: number | null;
                    /** @description Ours: `stdout` (default) or `stderr` with `seq`; without `seq` omitted, null or `console` */
                    stream?: ("stdout" | "stderr" | "console") | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many lines were stored (a console chunk counts the lines it was split into) */
                        accepted: number;
                        /** @description The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted) */
                        rejected: {
                            /** @description The item's index in the request's array, from 0 */
                            index: number;
                            /**
                             * @description `INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps
                             * @enum {string}
                             */
                            code: "INVALID_ITEM" | "OVER_LIMIT";
                            /** @description Why, in words, e.g. `value: Invalid input: expected number, received null` */
                            message: string;
                        }[];
                        /** @description How many of the batch's lines were stored already (a replay) */
                        duplicates: number;
                        /** @description The seq of the batch's first line: `seq` as sent, or the server's for a console batch */
                        first_seq: number;
                        /** @description Every line of this (rank, stream) below this seq is readable (or was given up on) */
                        released_to: number;
                        /** @description Lines of this (rank, stream) stored but waiting for a missing predecessor */
                        held: number;
                        /**
                         * @description The stream the lines went to: `stdout` or `stderr` with `seq`, else `console`
                         * @enum {string}
                         */
                        stream: "stdout" | "stderr" | "console";
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestMetrics: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description Up to 256 points `{ key, step, value, ts? }`; `value` a number, or `"nan"`, `"inf"`, `"-inf"` */
                    points: unknown[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many items were accepted (/hparams: names stored; /environment: 1, or 0 when refused) */
                        accepted: number;
                        /** @description The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted) */
                        rejected: {
                            /** @description The item's index in the request's array, from 0 */
                            index: number;
                            /**
                             * @description `INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps
                             * @enum {string}
                             */
                            code: "INVALID_ITEM" | "OVER_LIMIT";
                            /** @description Why, in words, e.g. `value: Invalid input: expected number, received null` */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getIngestStopNotice: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Why and by when the run is being stopped; null while nobody asked it to, and once it released its GPUs */
                        notice: {
                            /** @description Why, in a person's words (the stop command's reason), e.g. `stop by ada` */
                            reason: string;
                            /** @description When the agent sends SIGKILL if the workload is still there, ISO 8601 UTC */
                            deadline: string;
                            /** @description The grace the stop gave, in seconds: `deadline` is that long after it */
                            grace_seconds: number;
                            /**
                             * @description `preempted`: a job of a higher priority class needs its GPUs; `stopped`: anything else (a stop or pause, a fleet or node drain, a closing window, a spent budget, `max_runtime_seconds`, an anomaly stop)
                             * @enum {string}
                             */
                            cause: "preempted" | "stopped";
                            /** @description The job that preempted it (`job_…`) when `preempted`; else null */
                            preempted_by: string | null;
                        } | null;
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestRendezvous: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description This node's rank, below the run's node count */
                    node_rank: number;
                    /** @description The node count the client expects, checked against the run's; omitted or null: not checked */
                    nnodes?: number | null;
                    /** @description The IP address or host name this node's peers reach it at */
                    addr: string;
                    /** @description The port node rank 0 listens on (MASTER_PORT); required for rank 0, ignored for the others */
                    port?: number | null;
                    /**
                     * @description How long to wait for every rank, in milliseconds (at most 20000); 0: answer at once
                     * @default 0
                     */
                    wait_ms?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /**
                         * @description `waiting` for the `missing` ranks, `complete` once every rank joined, or `failed`: the run is over
                         * @enum {string}
                         */
                        state: "waiting" | "complete" | "failed";
                        /** @description The run's node count, from its placement */
                        nnodes: number;
                        /** @description The node ranks registered so far for this lease epoch (none when `failed`) */
                        joined: number[];
                        /** @description The node ranks not registered yet (none when `failed`) */
                        missing: number[];
                        /** @description Where node rank 0 listens, once `complete`; null before, or when `failed` */
                        master: {
                            /** @description Node rank 0's address (MASTER_ADDR) */
                            addr: string;
                            /** @description The port node rank 0 listens on (MASTER_PORT) */
                            port: number;
                        } | null;
                        /** @description Every node rank's address, by node rank, once `complete`; null before, or when `failed` */
                        hosts: string[] | null;
                        /** @description Why it `failed`, e.g. `the run is FAILED: …`; null otherwise */
                        reason: string | null;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    ingestValidation: {
        parameters: {
            query?: never;
            header?: {
                /** @description The run's ingest token, instead of `Authorization: Bearer` (wins when both are sent) */
                "X-StarForge-Token"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run reported on: the token's run (another run's id is a 403) */
                    run_id: string;
                    /** @description The training step the samples were validated at */
                    step: number;
                    /** @description This chunk's index among the step's chunks, from 0, below `total_chunks` */
                    chunk_index: number;
                    /** @description How many chunks the step's samples are sent in */
                    total_chunks: number;
                    /** @description How many samples the step has, over all its chunks */
                    total_samples: number;
                    /** @description Up to 256 samples `{ idx, reward?, user?, assistant?, env? }`, ≤ 512 KiB of JSON each, stored by (step, idx) */
                    samples: unknown[];
                    /** @description The step's average reward; omitted or null: the one an earlier chunk sent, if any */
                    avg_reward?: number | null;
                    /** @description A distribution summary for the step (any JSON, ≤ 512 KiB); omitted or null: an earlier chunk's, if any */
                    dist?: unknown;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many items were accepted (/hparams: names stored; /environment: 1, or 0 when refused) */
                        accepted: number;
                        /** @description The items refused, each with its index and why; empty when none was (a `nan` or `inf` metric value is accepted but not charted) */
                        rejected: {
                            /** @description The item's index in the request's array, from 0 */
                            index: number;
                            /**
                             * @description `INVALID_ITEM`: it fails its schema; `OVER_LIMIT`: past the request's item limit, too large, or past what the run keeps
                             * @enum {string}
                             */
                            code: "INVALID_ITEM" | "OVER_LIMIT";
                            /** @description Why, in words, e.g. `value: Invalid input: expected number, received null` */
                            message: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: TOKEN_REVOKED, UNAUTHENTICATED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: {
                all?: "0" | "1" | "true" | "false";
                user?: string;
                status?: string;
                fleet?: string;
                method?: string;
                q?: string;
                limit?: number;
                cursor?: string;
            };
            header?: {
                /** @description The ETag of the page last read */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description A page of jobs, newest first */
                        jobs: components["schemas"]["JobSummary"][];
                        /** @description The next page's `cursor`: this page's last job id; null on the last page */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description Not modified since the ETag sent */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND, FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    submitJob: {
        parameters: {
            query?: {
                /** @description `1`/`true`: check and decide, change nothing */
                dry_run?: "0" | "1" | "true" | "false";
            };
            header?: {
                /** @description Makes a retried submit answer the first one's jobs (docs/api.md "Idempotency") */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JobSpec"] | {
                    /** @description A job array: its JobSpecs, admitted all or none, on one fleet */
                    jobs: components["schemas"]["JobSpec"][];
                };
            };
        };
        responses: {
            /** @description A replay of an Idempotency-Key's submit (`Idempotent-Replayed: true`), or a dry run */
            200: {
                headers: {
                    /** @description `true` on a replay */
                    "Idempotent-Replayed"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job: components["schemas"]["JobDetail"];
                    } | {
                        /** @description Every job of the array, in the order sent */
                        jobs: components["schemas"]["JobDetail"][];
                    } | {
                        /**
                         * @description Always `true`: nothing was reserved, queued or written
                         * @constant
                         */
                        dry_run: true;
                        /** @description What the fleet would do with each job now, in the order sent */
                        jobs: components["schemas"]["DryRunJob"][];
                    };
                };
            };
            /** @description Admitted: the job (or the array's jobs, in the order sent) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job: components["schemas"]["JobDetail"];
                    } | {
                        /** @description Every job of the array, in the order sent */
                        jobs: components["schemas"]["JobDetail"][];
                    };
                };
            };
            /** @description 400: INVALID_SPEC, INVALID_HYPERPARAMS, INVALID_PROFILE, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "INVALID_HYPERPARAMS" | "INVALID_PROFILE" | "INVALID_SPEC";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: IMAGE_NOT_ALLOWED, PROFILE_NOT_ALLOWED, QUOTA_EXCEEDED, PRIORITY_CLASS_NOT_ALLOWED, TEAM_NOT_MEMBER, BUDGET_EXHAUSTED, FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BUDGET_EXHAUSTED" | "FORBIDDEN" | "IMAGE_NOT_ALLOWED" | "PRIORITY_CLASS_NOT_ALLOWED" | "PROFILE_NOT_ALLOWED" | "QUOTA_EXCEEDED" | "TEAM_NOT_MEMBER";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND, PROFILE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "PROFILE_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: FLEET_DRAINING, RECIPE_LOCK_STALE, IDEMPOTENCY_KEY_REUSED, CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT" | "FLEET_DRAINING" | "IDEMPOTENCY_KEY_REUSED" | "RECIPE_LOCK_STALE";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 422: RECIPE_NOT_FOUND, RECIPE_VERSION_NOT_FOUND, FRAMEWORK_VERSION_UNSUPPORTED, IMAGE_REQUIRED, BLOB_MISSING, HF_NOT_FOUND, HF_REVISION_NOT_FOUND, HF_TOKEN_REQUIRED, HF_ACCESS_DENIED, SECRET_MISSING, PRIORITY_CLASS_UNKNOWN, TEAM_UNKNOWN, NO_ELIGIBLE_FLEET */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_MISSING" | "FRAMEWORK_VERSION_UNSUPPORTED" | "HF_ACCESS_DENIED" | "HF_NOT_FOUND" | "HF_REVISION_NOT_FOUND" | "HF_TOKEN_REQUIRED" | "IMAGE_REQUIRED" | "NO_ELIGIBLE_FLEET" | "PRIORITY_CLASS_UNKNOWN" | "RECIPE_NOT_FOUND" | "RECIPE_VERSION_NOT_FOUND" | "SECRET_MISSING" | "TEAM_UNKNOWN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: HF_UNAVAILABLE, SECRETS_UNAVAILABLE, UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "HF_UNAVAILABLE" | "SECRETS_UNAVAILABLE" | "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The job as the D1 ledger holds it, with its spec */
                        job: {
                            /** @description The job's id, `job_` plus a lowercase ULID */
                            id: string;
                            /** @description The job's name, the spec's `metadata.name` */
                            name: string;
                            /** @description The id (`usr_…`) of the user who submitted it */
                            user_id: string;
                            /** @description The id (`flt_…`) of the fleet it runs in */
                            fleet_id: string;
                            /**
                             * @description Its state, e.g. `QUEUED`, `RUNNING`, `SUCCEEDED`, `FAILED`, `STOPPED`, `PAUSED`
                             * @enum {string}
                             */
                            status: "QUEUED" | "SUBMITTED" | "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "STOPPED" | "PAUSED";
                            /** @description Its priority within its class, higher first: its `lifecycle.priority`, capped at its owner's quota */
                            priority: number;
                            /**
                             * @description Its priority class, `lifecycle.priority_class` (default `normal`): higher classes are scheduled first
                             * @default normal
                             */
                            priority_class: string;
                            /**
                             * @description The team it runs for; null: its submitter is in no team
                             * @default null
                             */
                            team: string | null;
                            /** @description GPUs it uses in all: the sum over its pools of `nodes` × `gpus_per_node` */
                            gpus: number;
                            /** @description Its recipe as `name@version`, e.g. `python/charlm@1.0.0` */
                            recipe: string;
                            /** @description Why it is not running yet; empty when nothing holds it back */
                            pending_reasons: {
                                /**
                                 * @description What holds it back, a stable code, e.g. `CAPACITY`, `QUOTA_GPUS`, `PREEMPTING`
                                 * @enum {string}
                                 */
                                code: "NO_NODE_OF_SERIES" | "CAPACITY" | "GANG_INCOMPLETE" | "QUOTA_GPUS" | "QUOTA_GPU_HOURS" | "NO_AGENT_RUNTIME" | "WINDOW_CLOSED" | "FLEET_DRAINING" | "PREVIOUS_RUN_STOPPING" | "RUNTIME_WAITING" | "PREEMPTING" | "PREEMPTION_STALLED" | "TEAM_GUARANTEE_FULL" | "TEAM_BORROW_LIMIT" | "TEAM_LEND_LIMIT" | "BUDGET_EXHAUSTED";
                                /** @description The same reason in words, for people */
                                message: string;
                                /**
                                 * @description Flat facts for programs (series, limits, counts, times) by name; which ones depend on `code`
                                 * @default {}
                                 */
                                details: {
                                    [key: string]: string | number | boolean | null;
                                };
                            }[];
                            /** @description Its newest run's id (`run_…`), kept after that run ends; null before its first dispatch */
                            current_run_id: string | null;
                            /** @description When it was submitted, ISO 8601 UTC */
                            created_at: string;
                            /** @description When it last changed, ISO 8601 UTC */
                            updated_at: string;
                            /** @description `GET /v1/jobs` only: the owner's user name */
                            user?: string;
                            /** @description `GET /v1/jobs` only: its profile name(s), comma-separated if its pools use several; null: none */
                            profile?: string | null;
                            /** @description `GET /v1/jobs` only: when its first run took its GPUs, ISO 8601 UTC; null before any run */
                            started_at?: string | null;
                            /** @description `GET /v1/jobs` only: when its last run ended, ISO 8601 UTC; null unless the job is at rest */
                            ended_at?: string | null;
                            /** @description The JobSpec as admitted, defaults and hyperparameters filled in */
                            spec: unknown;
                        };
                        /**
                         * @description Why its latest run failed; null if that run did not fail, or is not diagnosed yet
                         * @default null
                         */
                        diagnosis: components["schemas"]["Diagnosis"] | null;
                        /** @description Its runs, by attempt */
                        runs: components["schemas"]["Run"][];
                        /** @description Its transitions, by `seq` */
                        events: components["schemas"]["JobEvent"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    listJobArtifacts: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read (`run_…`): the one `run` names, else the job's current run, else its latest */
                        run_id: string;
                        /** @description What the run registered, by step (unnumbered last), then path */
                        artifacts: components["schemas"]["Artifact"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    downloadJobArtifact: {
        parameters: {
            query: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
                /** @description The artifact's path, as registered */
                path: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bytes */
            200: {
                headers: {
                    /** @description The artifact's size in bytes */
                    "Content-Length"?: string;
                    /** @description `attachment`, with the file's name */
                    "Content-Disposition"?: string;
                    /** @description `"<digest>"`, when the artifact has a digest */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND, BLOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BLOB_NOT_FOUND" | "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJobEnvironment: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read: the one `run` names (`run_…`), else the job's current run, else its latest */
                        run_id: string;
                        /** @description Each distinct environment probe the run sent (an identical one is kept once), oldest first */
                        probes: {
                            /** @description The host the probe describes (its `hostname` or `host.hostname`); null if it names none */
                            hostname: string | null;
                            /** @description When the server first received this probe, ISO 8601 UTC */
                            received_at: string;
                            /** @description The probe as the client sent it, without `run_id` */
                            probe: {
                                [key: string]: components["schemas"]["JsonValue"];
                            };
                        }[];
                        /** @description The run's nodes by host name, each entry as last sent plus `updated_at` */
                        nodes: {
                            /** @description The node's host name, which its entry is stored by */
                            hostname: string;
                            cpu: components["schemas"]["JsonValue"];
                            gpu: components["schemas"]["JsonValue"];
                            /** @description When its latest entry arrived, ISO 8601 UTC */
                            updated_at: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJobRunEvents: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read: the one `run` names (`run_…`), else the job's current run, else its latest */
                        run_id: string;
                        /** @description The run as the ledger records it */
                        run: {
                            /** @description The run's id, `run_` plus a lowercase ULID */
                            id: string;
                            /** @description Which attempt of the job it is, counting from 1 */
                            attempt: number;
                            /** @description `SUBMITTED`, then `RUNNING` once started; once ended, the job's resting state, e.g. `STOPPED` */
                            status: string;
                            /** @description When it took its GPUs, ISO 8601 UTC */
                            allocated_at: string;
                            /** @description When it released its GPUs (every rank gone), ISO 8601 UTC; null while it holds them */
                            ended_at: string | null;
                            /** @description Its exit code (0 when every rank exited 0); null while it runs or if none was reported */
                            exit_code: number | null;
                            /** @description Why it ended, in words, e.g. `stop by ada`; null while it runs or if none was given */
                            reason: string | null;
                        };
                        /** @description What its ranks reported: the first report of each event per rank, in the order received */
                        lifecycle: {
                            /** @description The rank that reported */
                            rank: number;
                            /** @description What it reported: `started`, `succeeded` or `failed` */
                            event: string;
                            /** @description When it happened, ISO 8601 UTC: the rank's time, else when the server received the report */
                            ts: string;
                            /** @description The exit code the rank reported; null if it sent none */
                            exit_code: number | null;
                            /** @description Why the rank ended, as it reported it; null if it sent none */
                            reason: string | null;
                            /** @description When the server received the report, ISO 8601 UTC */
                            received_at: string;
                        }[];
                        /** @description The job's transitions from this run's dispatch to its end (all of them: GET /v1/jobs/{id}) */
                        transitions: components["schemas"]["JobEvent"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJobHardware: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
                /** @description One key (`gpu.util`…): its samples (without it: the series) */
                key?: string;
                /** @description Only samples whose `node_id` or `worker_id` is this */
                node?: string;
                /** @description Only this GPU index */
                gpu?: number;
                /** @description With `key`: samples after this time (epoch ms or ISO-8601) */
                after?: string;
                /** @description With `key`: 1–10000 samples (default 5000) */
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read: the one `run` names (`run_…`), else the job's current run, else its latest */
                        run_id: string;
                        /** @description Every series (key, node_id, worker_id, gpu_idx) the filters keep, by key */
                        series: {
                            /** @description What is sampled, e.g. `gpu.util` */
                            key: string;
                            /** @description The Ray node that sampled; null outside Ray (or if none was sent) */
                            node_id: string | null;
                            /** @description The worker that sampled (outside Ray the host or process); null if none was sent */
                            worker_id: string | null;
                            /** @description The GPU's index; null for host keys (`cpu.*`, `mem.*`) */
                            gpu_idx: number | null;
                            /** @description The GPU's UUID as the client sent it, e.g. `GPU-5c1e…`; null if none */
                            gpu_uuid: string | null;
                            /** @description How many samples the series holds */
                            count: number;
                            /** @description Its newest sample */
                            last: {
                                /** @description When it was sampled, ISO 8601 UTC: the client's time, else when the server received it */
                                ts: string;
                                /** @description The sampled value */
                                value: number;
                            };
                        }[];
                    } | {
                        /** @description The run read: the one `run` names (`run_…`), else the job's current run, else its latest */
                        run_id: string;
                        /** @description The key asked for */
                        key: string;
                        /** @description The page's samples grouped by series (node_id, worker_id, gpu_idx) */
                        series: {
                            /** @description The Ray node that sampled; null outside Ray (or if none was sent) */
                            node_id: string | null;
                            /** @description The worker that sampled (outside Ray the host or process); null if none was sent */
                            worker_id: string | null;
                            /** @description The GPU's index; null for host keys (`cpu.*`, `mem.*`) */
                            gpu_idx: number | null;
                            /** @description The GPU's UUID as the client sent it, e.g. `GPU-5c1e…`; null if none */
                            gpu_uuid: string | null;
                            /** @description The page's samples of this series, in time order */
                            points: {
                                /** @description When it was sampled, ISO 8601 UTC: the client's time, else when the server received it */
                                ts: string;
                                /** @description The sampled value */
                                value: number;
                            }[];
                        }[];
                        /** @description The next page's `after`: the page's last sample time in epoch ms; null on the last page */
                        next_after: number | null;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJobHparams: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read: the one `run` names (`run_…`), else the job's current run, else its latest */
                        run_id: string;
                        /** @description Each top-level name with its JSON value, as the run last reported it */
                        params: {
                            [key: string]: components["schemas"]["JsonValue"];
                        };
                        /** @description When the latest report arrived, ISO 8601 UTC; null when the run reported none */
                        updated_at: string | null;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJobLogs: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
                /** @description The first cursor to return (default 0) */
                offset?: number;
                /** @description 1–5000 lines (default 1000) */
                limit?: number;
                /** @description Only this rank's lines */
                rank?: number;
                /** @description Only this stream's lines */
                stream?: "stdout" | "stderr" | "console";
                /** @description `1`/`true`: a live tail (text/event-stream) instead of a page */
                follow?: "0" | "1" | "true" | "false";
            };
            header?: {
                /** @description With `follow=1`: the last cursor received; the tail resumes right after it */
                "Last-Event-ID"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of lines (JSON), or with `follow=1` the live tail (server-sent events) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read (`run_…`): the one `run` names, else the job's current run, else its latest */
                        run_id: string;
                        /** @description Released lines from `offset` on, in cursor order */
                        lines: components["schemas"]["LogLine"][];
                        /** @description The next page's `offset`: the last cursor returned plus one (`offset` if none was) */
                        next_offset: number;
                        /** @description `true` once the run is over: no line is held back any more */
                        ended: boolean;
                        /** @description Per rank and stream: what is readable, what is held back, where it ended */
                        streams: {
                            /** @description The rank that writes the stream */
                            rank: number;
                            /** @description `stdout`, `stderr` or `console` */
                            stream: string;
                            /** @description Every `seq` below it is readable, or was given up on */
                            released_to: number;
                            /** @description How many lines wait, held back, for a missing earlier line */
                            held: number;
                            /** @description One past the stream's last `seq`, once its writer sent `eof`; null before */
                            eof_seq: number | null;
                        }[];
                    };
                    "text/event-stream": string;
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    downloadJobLogs: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
                /** @description Only this rank's lines */
                rank?: number;
                /** @description Only this stream's lines */
                stream?: "stdout" | "stderr" | "console";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The log as plain text */
            200: {
                headers: {
                    /** @description `attachment; filename="<run id>.log"` */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJobMetrics: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
                /** @description A metric key: its series (without it: the keys) */
                key?: string;
                /** @description With `key`: the page starts after this step (an integer, default -1) */
                after?: number;
                /** @description With `key`: 1–10000 points (default 5000) */
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read (`run_…`): the one `run` names, else the job's current run, else its latest */
                        run_id: string;
                        /** @description Every metric the run reported, by key, with its point at the highest step */
                        keys: {
                            /** @description The metric's name, e.g. `loss` */
                            key: string;
                            /** @description How many points it has (one per step) */
                            count: number;
                            last: components["schemas"]["MetricPoint"];
                        }[];
                    } | {
                        /** @description The run read (`run_…`): the one `run` names, else the job's current run, else its latest */
                        run_id: string;
                        /** @description The metric's name */
                        key: string;
                        /** @description Its points after `after`, by step */
                        points: components["schemas"]["MetricPoint"][];
                        /** @description The next page's `after`; null on the last page */
                        next_after: number | null;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    pauseJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Why, in your words: recorded in the event's `detail.reason` */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job: components["schemas"]["JobDetail"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: INVALID_TRANSITION, CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT" | "INVALID_TRANSITION";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    resumeJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Why, in your words: recorded in the event's `detail.reason` */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job: components["schemas"]["JobDetail"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: QUOTA_EXCEEDED, FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN" | "QUOTA_EXCEEDED";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: INVALID_TRANSITION, CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT" | "INVALID_TRANSITION";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    stopJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Why, in your words: recorded in the event's `detail.reason` */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        job: components["schemas"]["JobDetail"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: INVALID_TRANSITION, CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT" | "INVALID_TRANSITION";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getJobValidation: {
        parameters: {
            query?: {
                /** @description One of the job's runs (`run_…`); default: its current run, else its latest */
                run?: string;
                /** @description One step: its samples (without it: every step) */
                step?: number;
                /** @description With `step`: samples after this idx (default -1) */
                after?: number;
                /** @description With `step`: 1–1000 samples (default 100) */
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The run read: the one `run` names (`run_…`), else the job's current run, else its latest */
                        run_id: string;
                        /** @description Every step the run sent validation samples for, by step */
                        steps: {
                            /** @description The training step the samples were validated at */
                            step: number;
                            /** @description How many chunks the step's samples are sent in, as the latest chunk said */
                            total_chunks: number;
                            /** @description How many distinct chunks of the step arrived */
                            chunks_received: number;
                            /** @description How many samples the step has, as the latest chunk said */
                            total_samples: number;
                            /** @description How many distinct samples (by `idx`) of the step are stored */
                            samples_received: number;
                            /** @description True when every chunk and every sample the client announced has arrived */
                            complete: boolean;
                            /** @description The step's average reward, from the latest chunk that sent one; null if none did */
                            avg_reward: number | null;
                            dist: components["schemas"]["JsonValue"];
                            /** @description When the step's latest chunk arrived, ISO 8601 UTC */
                            updated_at: string;
                        }[];
                    } | {
                        /** @description The run read: the one `run` names (`run_…`), else the job's current run, else its latest */
                        run_id: string;
                        /** @description The step's summary */
                        step: {
                            /** @description The training step the samples were validated at */
                            step: number;
                            /** @description How many chunks the step's samples are sent in, as the latest chunk said */
                            total_chunks: number;
                            /** @description How many distinct chunks of the step arrived */
                            chunks_received: number;
                            /** @description How many samples the step has, as the latest chunk said */
                            total_samples: number;
                            /** @description How many distinct samples (by `idx`) of the step are stored */
                            samples_received: number;
                            /** @description True when every chunk and every sample the client announced has arrived */
                            complete: boolean;
                            /** @description The step's average reward, from the latest chunk that sent one; null if none did */
                            avg_reward: number | null;
                            dist: components["schemas"]["JsonValue"];
                            /** @description When the step's latest chunk arrived, ISO 8601 UTC */
                            updated_at: string;
                        };
                        /** @description The page's samples of the step, by `idx` */
                        samples: {
                            /** @description The sample's index in its step */
                            idx: number;
                            /** @description The sample's reward; null if none was sent */
                            reward: number | null;
                            user: components["schemas"]["JsonValue"];
                            assistant: components["schemas"]["JsonValue"];
                            env: components["schemas"]["JsonValue"];
                        }[];
                        /** @description The next page's `after`: the `idx` of the page's last sample; null on the last page */
                        next_after: number | null;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: JOB_NOT_FOUND, NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "JOB_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["User"];
                        /** @description The effective quota: the one an admin set (defaults filled in), else the default quota */
                        quota: {
                            /** @description GPUs the user's jobs may hold at once */
                            max_gpus: number;
                            /** @description Jobs the user may have active at once: `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING` */
                            max_jobs: number;
                            /** @description GPU-hours the user's jobs may use per UTC day */
                            daily_gpu_hours: number;
                            /**
                             * @description The profiles the user may submit to; empty: every profile
                             * @default []
                             */
                            allowed_profiles: string[];
                            /**
                             * @description The highest `lifecycle.priority` the user's jobs get, and theirs when they ask for none
                             * @default 10
                             */
                            priority: number;
                            /**
                             * @description The highest priority class (by value) the user's jobs may ask for
                             * @default normal
                             */
                            max_priority_class: string;
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: {
                /** @description The ETag of the copy you hold */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An OpenAPI 3.1 document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The OpenAPI version the document follows, `3.1.0` */
                        openapi: string;
                        /** @description The API's title, description and release */
                        info: {
                            /** @description The server's release, e.g. `0.1.0` */
                            version: string;
                        };
                    };
                };
            };
            /** @description Not modified since the ETag sent */
            304: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listPriorityClasses: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every class, highest value first */
                        priority_classes: components["schemas"]["PriorityClass"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    setPriorityClass: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Higher runs first and may preempt jobs of lower, preemptible classes; required for a new class */
                    value?: number;
                    /** @description Whether its jobs may be preempted; omitted: unchanged (a new class: `true`) */
                    preemptible?: boolean;
                    /** @description Seconds a preempted job gets from SIGTERM to SIGKILL to checkpoint; omitted: unchanged (a new class: 120) */
                    grace_seconds?: number;
                    /** @description Seconds its jobs run before they may be preempted; omitted: unchanged (a new class: 600) */
                    min_runtime_seconds?: number;
                    /** @description Whether its jobs may use GPUs beyond their team's guarantee; omitted: unchanged (a new class: `true`) */
                    may_borrow?: boolean;
                    /** @description What the class is for, free text; omitted: unchanged (a new class: empty) */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The class was changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        priority_class: components["schemas"]["PriorityClass"];
                    };
                };
            };
            /** @description The class was added */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        priority_class: components["schemas"]["PriorityClass"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    deletePriorityClass: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The name of what was deleted (the profile, priority class or team) */
                        deleted: string;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    listProfiles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every profile, by name */
                        profiles: components["schemas"]["Profile"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    setProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The GPU series its jobs run on, e.g. `h100` */
                    series: string;
                    /** @description GPUs on one node of this profile */
                    gpus_per_node: number;
                    /** @description The GPUs a job gets when it names none: at most `gpus_per_node`, or a multiple of it */
                    default_gpus: number;
                    /**
                     * @description What the profile is, free text
                     * @default
                     */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        profile: components["schemas"]["Profile"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    deleteProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The name of what was deleted (the profile, priority class or team) */
                        deleted: string;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: PROFILE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PROFILE_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listSecrets: {
        parameters: {
            query?: {
                /** @description Another user's secrets (admins only; your own name is always allowed) */
                user?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The secrets, by name; never their values */
                        secrets: components["schemas"]["Secret"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    setSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The value: 8 characters to 32 KiB, no NUL; stored sealed, and no route ever returns it */
                    value: string;
                };
            };
        };
        responses: {
            /** @description The secret's value was replaced */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        secret: components["schemas"]["Secret"];
                    };
                };
            };
            /** @description The secret was created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        secret: components["schemas"]["Secret"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: SECRETS_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "SECRETS_UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    deleteSecret: {
        parameters: {
            query?: {
                /** @description Another user's secrets (admins only; your own name is always allowed) */
                user?: string;
            };
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The deleted secret's name */
                        name: string;
                        /** @description Always `true` */
                        deleted: boolean;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: SECRET_NOT_FOUND, USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "SECRET_NOT_FOUND" | "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    rewrapSecrets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The id of the current `SF_SECRETS_KEY` (12 hex digits of its SHA-256) */
                        key_id: string;
                        /** @description How many values were sealed again under it */
                        rewrapped: number;
                        /** @description Values that no key opens (sealed with a key neither current nor in `SF_SECRETS_OLD_KEYS`, or altered), left as they are */
                        unreadable: {
                            /** @description `user` or `fleet` */
                            scope: string;
                            /** @description Whose it is: the user's id (`usr_…`) or the fleet's (`flt_…`) */
                            owner_id: string;
                            /** @description The secret's name */
                            name: string;
                            /** @description The id of the key it is sealed with */
                            key_id: string;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: SECRETS_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "SECRETS_UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    listTeams: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every team, by name */
                        teams: components["schemas"]["Team"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    setTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description What the team is, free text; omitted: unchanged (empty for a new team) */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The team's description was changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description The team was created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    deleteTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The name of what was deleted (the profile, priority class or team) */
                        deleted: string;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    setTeamBudget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description GPU-hours the team may use per calendar month (UTC); null: no monthly budget; omitted: unchanged */
                    monthly_gpu_hours?: number | null;
                    /** @description GPU-hours the team may use per ISO week (from Monday, UTC); null: no weekly budget; omitted: unchanged */
                    weekly_gpu_hours?: number | null;
                    /**
                     * @description Once spent: `refuse` new jobs, also `pause` running ones, or `borrow_free` (guarantee only); omitted: unchanged
                     * @enum {string}
                     */
                    policy?: "refuse" | "pause" | "borrow_free";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    setTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                user: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `true`: make this the user's primary team, the one their jobs that name no team run for */
                    primary?: boolean;
                };
            };
        };
        responses: {
            /** @description The membership was changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description The user was added to the team */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND, USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND" | "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    removeTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                user: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND, USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "NOT_FOUND" | "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    setTeamQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                fleet: string;
                series: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description GPUs that are the team's whenever it wants them: its jobs take them back from borrowers */
                    guaranteed: number;
                    /**
                     * @description GPUs beyond the guarantee it may borrow while others' are idle; null: no limit but the fleet's size
                     * @default null
                     */
                    borrow_limit?: number | null;
                    /**
                     * @description GPUs of its guarantee others may borrow while it leaves them idle; null: all of it
                     * @default null
                     */
                    lend_limit?: number | null;
                    /**
                     * @description Its share of borrowed GPUs against other borrowing teams: more weight, more GPUs
                     * @default 1
                     */
                    weight?: number;
                };
            };
        };
        responses: {
            /** @description The quota was changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description The quota was created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND, FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    deleteTeamQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                fleet: string;
                series: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        team: components["schemas"]["Team"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: NOT_FOUND, FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND" | "NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    listTokens: {
        parameters: {
            query?: {
                /** @description List this user's tokens (admins; or your own name) */
                user?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The tokens, newest first, revoked and expired ones included */
                        tokens: components["schemas"]["Token"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A name to tell the token apart by, e.g. `laptop` */
                    name: string;
                    /** @description Days until the token expires; omitted: it never expires */
                    expires_in_days?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The token's id, `tok_` plus a lowercase ULID */
                        id: string;
                        /** @description The name it was given to tell it apart, e.g. `laptop` */
                        name: string;
                        /** @description The first 10 characters of its secret (`sfp_…`), to recognise it by */
                        prefix: string;
                        /** @description When it was created, ISO 8601 UTC */
                        created_at: string;
                        /** @description When it expires, ISO 8601 UTC; null: never */
                        expires_at: string | null;
                        /** @description When it was revoked, ISO 8601 UTC; null: it was not */
                        revoked_at: string | null;
                        /** @description When it last authenticated a request (updated at most hourly), ISO 8601 UTC; null: never */
                        last_used_at: string | null;
                        /** @description The token itself (`sfp_…`), shown only in this answer: send it as `Authorization: Bearer` */
                        token: string;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The token's id (`tok_…`) */
                        id: string;
                        /**
                         * @description Always `true`: the token is revoked (also when it already was)
                         * @constant
                         */
                        revoked: true;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: TOKEN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description Another user's usage (admins; or your own name) */
                user?: string;
                /** @description Add `daily`: GPU-hours of each UTC day of the last `days` days, today included */
                days?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The user's name */
                        user: string;
                        /** @description GPUs the user's open runs hold now */
                        active_gpus: number;
                        /** @description The user's jobs in `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING`, as the D1 ledger counts them */
                        active_jobs: number;
                        /** @description GPU-hours the user's runs used this UTC day, open runs up to now */
                        gpu_hours_today: number;
                        /** @description GPU-hours the user's runs used in all, open runs up to now */
                        gpu_hours_total: number;
                        /** @description The user's effective quota: the one an admin set, else the default quota */
                        quota: {
                            /** @description GPUs the user's jobs may hold at once */
                            max_gpus: number;
                            /** @description Jobs the user may have active at once: `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING` */
                            max_jobs: number;
                            /** @description GPU-hours the user's jobs may use per UTC day */
                            daily_gpu_hours: number;
                            /**
                             * @description The profiles the user may submit to; empty: every profile
                             * @default []
                             */
                            allowed_profiles: string[];
                            /**
                             * @description The highest `lifecycle.priority` the user's jobs get, and theirs when they ask for none
                             * @default 10
                             */
                            priority: number;
                            /**
                             * @description The highest priority class (by value) the user's jobs may ask for
                             * @default normal
                             */
                            max_priority_class: string;
                        };
                        /** @description Only with `?days=N`: GPU-hours per UTC day, oldest first, every day of the window present */
                        daily?: {
                            /** @description The UTC day, `YYYY-MM-DD` */
                            date: string;
                            /** @description GPU-hours used that day: a run counts on each day it held GPUs, split at UTC midnight */
                            gpu_hours: number;
                        }[];
                        /** @description The node capacity of every fleet that has nodes, not only the user's */
                        fleets: {
                            /** @description The fleet's id (`flt_…`) */
                            fleet_id: string;
                            /** @description GPUs on its nodes */
                            gpus: number;
                            /** @description Of those, GPUs held by runs, as the ledger last recorded them */
                            allocated: number;
                            /** @description How many nodes it has */
                            nodes: number;
                        }[];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    getTeamUsage: {
        parameters: {
            query?: {
                /** @description `2026-12` (a calendar month, UTC) or `2026-W49` (an ISO week); default: this month */
                period?: string;
                /** @description `csv`: the rows as a CSV download */
                format?: "json" | "csv";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The period's usage; with `format=csv`, its rows as a CSV attachment */
            200: {
                headers: {
                    /** @description With `format=csv`: `attachment; filename="usage-<period>.csv"` */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The period: a calendar month (`2026-12`) or an ISO week (`2026-W49`), UTC */
                        period: string;
                        /** @description When the period starts, ISO 8601 UTC */
                        start: string;
                        /** @description When the period ends (the next one's start, excluded), ISO 8601 UTC */
                        end: string;
                        /** @description Per team of `rows` (null: no team), its GPU-hours in the period and its budget's use */
                        teams: {
                            /** @description The team; null: jobs of no team */
                            team: string | null;
                            /** @description GPU-hours its runs used in the period, over the fleets of `rows` */
                            gpu_hours: number;
                            /** @description Of `gpu_hours`, those on borrowed GPUs beyond its guarantee */
                            borrowed_gpu_hours: number;
                            /** @description Of `gpu_hours`, lost to preemption: what its preempted runs trained past their last checkpoint */
                            lost_gpu_hours: number;
                            /** @description Its budget for this kind of period (month or week) while the period is the current one; else null */
                            budget_gpu_hours: number | null;
                            /** @description How much of `budget_gpu_hours` the team has used, in percent; null without such a budget (or a 0 one) */
                            budget_percent: number | null;
                            /** @description What a spent budget does: `refuse`, `pause` or `borrow_free`; null: the team has no budget */
                            budget_policy: string | null;
                        }[];
                        /** @description Per team and fleet, its GPU use in the period (finished runs, and open ones up to now) */
                        rows: {
                            /** @description The team; null: jobs of no team */
                            team: string | null;
                            /** @description The fleet's name */
                            fleet: string;
                            /** @description The fleet's id (`flt_…`) */
                            fleet_id: string;
                            /** @description GPU-seconds of its runs that ran within the team's guarantee (not borrowed) */
                            in_guarantee_gpu_seconds: number;
                            /** @description GPU-seconds of its runs that ran on borrowed GPUs, beyond the team's guarantee */
                            borrowed_gpu_seconds: number;
                            /** @description All its GPU-seconds in the period: within guarantee plus borrowed */
                            gpu_seconds: number;
                            /** @description Of `gpu_seconds`, what preempted runs trained past their last checkpoint (lost to preemption) */
                            lost_gpu_seconds: number;
                        }[];
                        /** @description The sum of `gpu_seconds` over `rows` */
                        total_gpu_seconds: number;
                    };
                    "text/csv": string;
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every user, by name */
                        users: components["schemas"]["User"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The user's name: lowercase letters, digits, `.`, `_` and `-`, 2–39 characters, a letter first */
                    name: string;
                    /**
                     * @description What the user may do: `viewer` reads, `operator` also submits and acts on own jobs, `admin` everything
                     * @default operator
                     * @enum {string}
                     */
                    role?: "viewer" | "operator" | "admin";
                    /**
                     * Format: email
                     * @description The user's e-mail address; omitted: none (null)
                     */
                    email?: string;
                    /**
                     * @description Also mint the user's first token, named `initial`, shown only in this answer
                     * @default true
                     */
                    with_token?: boolean;
                };
            };
        };
        responses: {
            /** @description Created: the user, and `token` when `with_token` was true */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["User"];
                        /** @description The user's first token (`sfp_…`), named `initial`; shown only in this answer */
                        token: string;
                    } | {
                        user: components["schemas"]["User"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 409: ALREADY_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "ALREADY_EXISTS";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The user's new role: `viewer`, `operator` or `admin`; omitted: unchanged
                     * @enum {string}
                     */
                    role?: "viewer" | "operator" | "admin";
                    /** @description `true` disables the user: every request with their tokens is refused (403); omitted: unchanged */
                    disabled?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["User"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 409: CONFLICT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CONFLICT";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getUserQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The user's name */
                        user: string;
                        /** @description The effective quota: the one an admin set (defaults filled in), else the default quota */
                        quota: {
                            /** @description GPUs the user's jobs may hold at once */
                            max_gpus: number;
                            /** @description Jobs the user may have active at once: `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING` */
                            max_jobs: number;
                            /** @description GPU-hours the user's jobs may use per UTC day */
                            daily_gpu_hours: number;
                            /**
                             * @description The profiles the user may submit to; empty: every profile
                             * @default []
                             */
                            allowed_profiles: string[];
                            /**
                             * @description The highest `lifecycle.priority` the user's jobs get, and theirs when they ask for none
                             * @default 10
                             */
                            priority: number;
                            /**
                             * @description The highest priority class (by value) the user's jobs may ask for
                             * @default normal
                             */
                            max_priority_class: string;
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    setUserQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Quota"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The user's name */
                        user: string;
                        /** @description The effective quota: the one an admin set (defaults filled in), else the default quota */
                        quota: {
                            /** @description GPUs the user's jobs may hold at once */
                            max_gpus: number;
                            /** @description Jobs the user may have active at once: `QUEUED`, `SUBMITTED`, `PENDING` or `RUNNING` */
                            max_jobs: number;
                            /** @description GPU-hours the user's jobs may use per UTC day */
                            daily_gpu_hours: number;
                            /**
                             * @description The profiles the user may submit to; empty: every profile
                             * @default []
                             */
                            allowed_profiles: string[];
                            /**
                             * @description The highest `lifecycle.priority` the user's jobs get, and theirs when they ask for none
                             * @default 10
                             */
                            priority: number;
                            /**
                             * @description The highest priority class (by value) the user's jobs may ask for
                             * @default normal
                             */
                            max_priority_class: string;
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
            /** @description 503: UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "UNAVAILABLE";
                        };
                    };
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                /** @description Another user's webhooks (admins only; your own name is always allowed) */
                user?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The user's webhooks, newest first */
                        webhooks: components["schemas"]["Webhook"][];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: USER_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "USER_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Where deliveries are POSTed: an absolute `http` or `https` URL without credentials */
                    url: string;
                    /**
                     * @description Event types it receives (`job.failed`, …); `*`: every job event, not the team budget events
                     * @default [
                     *       "job.succeeded",
                     *       "job.failed",
                     *       "job.stopped"
                     *     ]
                     */
                    events?: string[];
                    /** @description Only jobs of this fleet (name or id); omitted: every fleet */
                    fleet?: string;
                    /**
                     * @description What the webhook is for, free text
                     * @default
                     */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["Webhook"];
                        /** @description Its signing secret, `whsec_` plus the base64 of 32 random bytes; shown only in this answer */
                        secret: string;
                    };
                };
            };
            /** @description 400: INVALID_WEBHOOK_URL, INVALID_WEBHOOK_EVENT, BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST" | "INVALID_WEBHOOK_EVENT" | "INVALID_WEBHOOK_URL";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: QUOTA_EXCEEDED, FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN" | "QUOTA_EXCEEDED";
                        };
                    };
                };
            };
            /** @description 404: FLEET_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FLEET_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["Webhook"];
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "WEBHOOK_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The deleted webhook's id (`wh_…`) */
                        id: string;
                        /** @description Always `true`: the webhook and its deliveries are gone */
                        deleted: boolean;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "WEBHOOK_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                state?: "pending" | "delivered" | "failed";
                limit?: number;
                cursor?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The webhook's deliveries, newest first; a finished one created over 30 days ago is deleted at the next daily sweep */
                        deliveries: components["schemas"]["WebhookDelivery"][];
                        /** @description The `cursor` of the next page; null on the last page */
                        next_cursor: string | null;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "WEBHOOK_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    getWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                delivery: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The delivery, with the body it sends */
                        delivery: {
                            /** @description The event's id, also its `webhook-id` header: `evt_<job id>_<event seq>`, `evt_budget_…` or `evt_<ulid>` (tests) */
                            id: string;
                            /** @description The id (`wh_…`) of the webhook it is sent to */
                            webhook_id: string;
                            /** @description The event type, e.g. `job.succeeded`, `team.budget_warning` or `webhook.test` */
                            type: string;
                            /** @description The job (`job_…`) the event is about; null for test and budget events */
                            job_id: string | null;
                            /** @description `pending` (its next attempt is due, or in flight), `delivered` (an attempt got a 2xx) or `failed` (retries ran out) */
                            state: string;
                            /** @description How many attempts were made, redeliveries included */
                            attempts: number;
                            /** @description The HTTP status its latest attempt got; null before any, or when none came */
                            last_status_code: number | null;
                            /** @description What went wrong in its latest attempt (no answer, or a redirect, not followed); null otherwise */
                            last_error: string | null;
                            /** @description While `pending`, when its next attempt is due, ISO 8601 UTC; null otherwise */
                            next_attempt_at: string | null;
                            /** @description When the delivery was queued, ISO 8601 UTC */
                            created_at: string;
                            /** @description When an attempt last got a 2xx answer, ISO 8601 UTC; null until one has */
                            delivered_at: string | null;
                            /** @description Every attempt, in order: when, the status or error, and how long it took */
                            attempt_log: {
                                /** @description The attempt's number, from 1, counting every attempt of the delivery */
                                n: number;
                                /** @description When the attempt started, ISO 8601 UTC */
                                at: string;
                                /** @description The HTTP status the endpoint answered; null when none came (refused connection, timeout) */
                                status_code: number | null;
                                /** @description What went wrong without a status, e.g. `no response within 10 s`, or `redirects are not followed`; null otherwise */
                                error: string | null;
                                /** @description How long the attempt took, in milliseconds */
                                duration_ms: number;
                            }[];
                            /** @description The exact JSON body each attempt POSTs: a job, test or team budget event */
                            payload: components["schemas"]["JobEventPayload"] | components["schemas"]["TestEventPayload"] | components["schemas"]["BudgetEventPayload"];
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: WEBHOOK_NOT_FOUND, DELIVERY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "DELIVERY_NOT_FOUND" | "WEBHOOK_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                delivery: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued: the delivery, pending */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The delivery, queued to be sent now (`pending`) */
                        delivery: {
                            /** @description The event's id, also its `webhook-id` header: `evt_<job id>_<event seq>`, `evt_budget_…` or `evt_<ulid>` (tests) */
                            id: string;
                            /** @description The id (`wh_…`) of the webhook it is sent to */
                            webhook_id: string;
                            /** @description The event type, e.g. `job.succeeded`, `team.budget_warning` or `webhook.test` */
                            type: string;
                            /** @description The job (`job_…`) the event is about; null for test and budget events */
                            job_id: string | null;
                            /** @description `pending` (its next attempt is due, or in flight), `delivered` (an attempt got a 2xx) or `failed` (retries ran out) */
                            state: string;
                            /** @description How many attempts were made, redeliveries included */
                            attempts: number;
                            /** @description The HTTP status its latest attempt got; null before any, or when none came */
                            last_status_code: number | null;
                            /** @description What went wrong in its latest attempt (no answer, or a redirect, not followed); null otherwise */
                            last_error: string | null;
                            /** @description While `pending`, when its next attempt is due, ISO 8601 UTC; null otherwise */
                            next_attempt_at: string | null;
                            /** @description When the delivery was queued, ISO 8601 UTC */
                            created_at: string;
                            /** @description When an attempt last got a 2xx answer, ISO 8601 UTC; null until one has */
                            delivered_at: string | null;
                            /** @description Every attempt, in order: when, the status or error, and how long it took */
                            attempt_log: {
                                /** @description The attempt's number, from 1, counting every attempt of the delivery */
                                n: number;
                                /** @description When the attempt started, ISO 8601 UTC */
                                at: string;
                                /** @description The HTTP status the endpoint answered; null when none came (refused connection, timeout) */
                                status_code: number | null;
                                /** @description What went wrong without a status, e.g. `no response within 10 s`, or `redirects are not followed`; null otherwise */
                                error: string | null;
                                /** @description How long the attempt took, in milliseconds */
                                duration_ms: number;
                            }[];
                            /** @description The body every attempt sends, parsed: in `GET …/deliveries/:delivery` only, absent here */
                            payload?: unknown;
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: WEBHOOK_NOT_FOUND, DELIVERY_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "DELIVERY_NOT_FOUND" | "WEBHOOK_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["Webhook"];
                        /** @description Its signing secret, `whsec_` plus the base64 of 32 random bytes; shown only in this answer */
                        secret: string;
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "WEBHOOK_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    testWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued: the delivery, pending */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The delivery, queued to be sent now (`pending`) */
                        delivery: {
                            /** @description The event's id, also its `webhook-id` header: `evt_<job id>_<event seq>`, `evt_budget_…` or `evt_<ulid>` (tests) */
                            id: string;
                            /** @description The id (`wh_…`) of the webhook it is sent to */
                            webhook_id: string;
                            /** @description The event type, e.g. `job.succeeded`, `team.budget_warning` or `webhook.test` */
                            type: string;
                            /** @description The job (`job_…`) the event is about; null for test and budget events */
                            job_id: string | null;
                            /** @description `pending` (its next attempt is due, or in flight), `delivered` (an attempt got a 2xx) or `failed` (retries ran out) */
                            state: string;
                            /** @description How many attempts were made, redeliveries included */
                            attempts: number;
                            /** @description The HTTP status its latest attempt got; null before any, or when none came */
                            last_status_code: number | null;
                            /** @description What went wrong in its latest attempt (no answer, or a redirect, not followed); null otherwise */
                            last_error: string | null;
                            /** @description While `pending`, when its next attempt is due, ISO 8601 UTC; null otherwise */
                            next_attempt_at: string | null;
                            /** @description When the delivery was queued, ISO 8601 UTC */
                            created_at: string;
                            /** @description When an attempt last got a 2xx answer, ISO 8601 UTC; null until one has */
                            delivered_at: string | null;
                            /** @description Every attempt, in order: when, the status or error, and how long it took */
                            attempt_log: {
                                /** @description The attempt's number, from 1, counting every attempt of the delivery */
                                n: number;
                                /** @description When the attempt started, ISO 8601 UTC */
                                at: string;
                                /** @description The HTTP status the endpoint answered; null when none came (refused connection, timeout) */
                                status_code: number | null;
                                /** @description What went wrong without a status, e.g. `no response within 10 s`, or `redirects are not followed`; null otherwise */
                                error: string | null;
                                /** @description How long the attempt took, in milliseconds */
                                duration_ms: number;
                            }[];
                            /** @description The body every attempt sends, parsed: in `GET …/deliveries/:delivery` only, absent here */
                            payload?: unknown;
                        };
                    };
                };
            };
            /** @description 400: BAD_REQUEST */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "BAD_REQUEST";
                        };
                    };
                };
            };
            /** @description 401: UNAUTHENTICATED, TOKEN_REVOKED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOKEN_REVOKED" | "UNAUTHENTICATED";
                        };
                    };
                };
            };
            /** @description 403: FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "FORBIDDEN";
                        };
                    };
                };
            };
            /** @description 404: WEBHOOK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "WEBHOOK_NOT_FOUND";
                        };
                    };
                };
            };
            /** @description 413: PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "PAYLOAD_TOO_LARGE";
                        };
                    };
                };
            };
            /** @description 426: CLI_TOO_OLD */
            426: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "CLI_TOO_OLD";
                        };
                    };
                };
            };
            /** @description 429: TOO_MANY_FAILED_LOGINS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "TOO_MANY_FAILED_LOGINS";
                        };
                    };
                };
            };
            /** @description 500: INTERNAL */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] & {
                        /** @description The refusal, as in every error answer */
                        error?: {
                            /**
                             * @description The codes this operation answers with this status
                             * @enum {unknown}
                             */
                            code?: "INTERNAL";
                        };
                    };
                };
            };
        };
    };
    webhook_job_event: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": string;
                "webhook-timestamp": string;
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JobEventPayload"];
            };
        };
        responses: {
            /** @description Received: any 2xx ends the delivery's retries. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_webhook_test: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": string;
                "webhook-timestamp": string;
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestEventPayload"];
            };
        };
        responses: {
            /** @description Received: any 2xx ends the delivery's retries. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    webhook_team_budget: {
        parameters: {
            query?: never;
            header: {
                "webhook-id": string;
                "webhook-timestamp": string;
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BudgetEventPayload"];
            };
        };
        responses: {
            /** @description Received: any 2xx ends the delivery's retries. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

"""A Standard Webhooks verifier written from the specification (standardwebhooks.com, "Verifying
webhook authenticity"), standard library only, independent of StarForge's own signing code.

Run as a script (test/support/webhook-verifiers.ts does): reads one JSON object on stdin,
{"secret": "whsec_...", "raw": false, "headers": {...}, "body": "<base64 of the raw body>", "now": 1700000000},
and prints {"id": "<webhook-id>"} when the delivery verifies, else {"error": "<why>"}. With "raw": true
the secret string's own bytes are the key (an endpoint secret from before Standard Webhooks).
The function below is printed in docs/api.md verbatim; the test checks that it still is.
"""

# --- docs/api.md: begin
import base64
import hashlib
import hmac
import json
import time

TOLERANCE_SECONDS = 5 * 60


class WebhookVerificationError(ValueError):
    pass


def verify_standard_webhook(secret, headers, raw_body, now=None):
    """Returns the event of a Standard Webhooks delivery, or raises WebhookVerificationError.

    secret: the endpoint's "whsec_<base64>" secret, or the key itself as bytes;
    headers: a mapping of header names (any case) to values; raw_body: the exact bytes received.
    """
    lower = {name.lower(): value for name, value in headers.items()}
    msg_id = lower.get("webhook-id")
    timestamp = lower.get("webhook-timestamp")
    signatures = lower.get("webhook-signature")
    if not (msg_id and timestamp and signatures):
        raise WebhookVerificationError("a webhook-id, webhook-timestamp or webhook-signature header is missing")
    now = time.time() if now is None else now
    if not (timestamp.isascii() and timestamp.isdigit()) or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("webhook-timestamp is invalid or more than 5 minutes away")
    if isinstance(secret, bytes):
        key = secret
    else:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + raw_body
    expected = hmac.new(key, signed, hashlib.sha256).digest()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version != "v1":
            continue
        try:
            received = base64.b64decode(signature, validate=True)
        except ValueError:
            continue
        if hmac.compare_digest(received, expected):
            return json.loads(raw_body)
    raise WebhookVerificationError("no webhook-signature entry matches")
# --- docs/api.md: end


if __name__ == "__main__":
    import sys

    request = json.load(sys.stdin)
    key = request["secret"].encode() if request.get("raw") else request["secret"]
    try:
        event = verify_standard_webhook(
            key, request["headers"], base64.b64decode(request["body"]), request.get("now")
        )
        print(json.dumps({"id": event["id"]}))
    except WebhookVerificationError as err:
        print(json.dumps({"error": str(err)}))

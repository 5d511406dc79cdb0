"""Submit a job and follow its logs with nothing but Python's standard library (docs/api.md "A client
from the document"). Shapes are in the control plane's OpenAPI document, GET /v1/openapi.json.

    SF_URL=https://sf.example.com SF_TOKEN=sfp_... python3 submit_and_follow.py job.json
"""
import json
import os
import sys
import time
import urllib.error
import urllib.request

URL = os.environ["SF_URL"].rstrip("/")
TOKEN = os.environ["SF_TOKEN"]


def call(method, path, body=None):
    req = urllib.request.Request(
        URL + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.load(res)
    except urllib.error.HTTPError as e:
        # Every error has a stable code to switch on, and a message for people.
        err = json.load(e)["error"]
        sys.exit("%s %s: %s: %s" % (method, path, err["code"], err["message"]))


with open(sys.argv[1]) as f:
    spec = json.load(f)
job = call("POST", "/v1/jobs", spec)["job"]
print("submitted %s (%s)" % (job["id"], job["status"]), flush=True)

# Page through the log from the last cursor read until the run is over and nothing is left.
offset = 0
while True:
    page = call("GET", "/v1/jobs/%s/logs?offset=%d" % (job["id"], offset))
    for line in page["lines"]:
        print("[rank %d] %s" % (line["rank"], line["line"]), flush=True)
    offset = page["next_offset"]
    if not page["lines"]:
        if page["ended"]:
            break
        time.sleep(2)
print("%s ended %s" % (job["id"], call("GET", "/v1/jobs/%s" % job["id"])["job"]["status"]))

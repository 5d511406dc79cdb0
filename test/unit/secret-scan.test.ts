/**
 * What `sf submit` refuses by content (issue 14) and by name, and what it must let through: each
 * credential kind with its line, the near-misses ordinary ML code is full of, and the files it does not
 * read for content (binary, over 5 MiB). Fake credentials are assembled at run time so this repository
 * never holds one a scanner (ours or a host's) would flag.
 */
import { describe, expect, it } from "vitest";
import {
  BINARY_SNIFF_BYTES,
  type CredentialKind,
  SCAN_MAX_BYTES,
  scanBytes,
  scanText,
} from "../../cli/impl/submit/secret-scan.js";
import { isSecretPath } from "../../cli/impl/submit/secrets.js";

const ALNUM = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC";
const alnum = (n: number) => ALNUM.repeat(Math.ceil(n / ALNUM.length)).slice(0, n);
const upper = (n: number) =>
  ALNUM.toUpperCase()
    .repeat(Math.ceil(n / ALNUM.length))
    .slice(0, n);

const FAKE = {
  hf: `hf${"_"}${alnum(34)}`,
  akia: `AK${"IA"}${upper(16)}`,
  asia: `AS${"IA"}${upper(16)}`,
  ghp: `gh${"p_"}${alnum(36)}`,
  ghs: `gh${"s_"}${alnum(36)}`,
  pat: `github${"_pat_"}${alnum(22)}_${alnum(59)}`,
  pem: (type: string) => `-----BEGIN ${type}PRIVATE${" KEY"}-----`,
};

const kinds = (text: string) => scanText(text).map((f) => [f.line, f.kind] as [number, CredentialKind]);

describe("scanText finds each kind of credential on its line", () => {
  const cases: Array<[string, string, CredentialKind, string]> = [
    ["a HuggingFace token", `HF_TOKEN = "${FAKE.hf}"`, "huggingface", "HuggingFace token (hf_…)"],
    ["an AWS key id (AKIA)", `aws_access_key_id=${FAKE.akia}`, "aws", "AWS access key id (AKIA…)"],
    ["an AWS session key id (ASIA)", `key: '${FAKE.asia}'`, "aws", "AWS access key id (ASIA…)"],
    ["a GitHub classic token", `token = "${FAKE.ghp}"`, "github", "GitHub token (ghp_…)"],
    ["a GitHub app token", `GH=${FAKE.ghs}`, "github", "GitHub token (ghs_…)"],
    [
      "a GitHub fine-grained token",
      `url = "https://${FAKE.pat}@github.com/x"`,
      "github",
      "GitHub token (github_pat_…)",
    ],
    ["an RSA key", FAKE.pem("RSA "), "private-key", "private key (BEGIN RSA PRIVATE KEY)"],
    ["an EC key", FAKE.pem("EC "), "private-key", "private key (BEGIN EC PRIVATE KEY)"],
    ["an OpenSSH key", FAKE.pem("OPENSSH "), "private-key", "private key (BEGIN OPENSSH PRIVATE KEY)"],
    ["a DSA key", FAKE.pem("DSA "), "private-key", "private key (BEGIN DSA PRIVATE KEY)"],
    ["an encrypted key", FAKE.pem("ENCRYPTED "), "private-key", "private key (BEGIN ENCRYPTED PRIVATE KEY)"],
    ["a PKCS#8 key", `KEY = """${FAKE.pem("")}`, "private-key", "private key (BEGIN PRIVATE KEY)"],
    ["a one-line .netrc entry", "machine api.wandb.ai login user password s3cr3t-value", "netrc", ""],
    [
      "a .netrc entry inside a shell echo",
      `echo "machine hf.co login me password abc123" >> ~/.netrc`,
      "netrc",
      "",
    ],
  ];
  for (const [what, line, kind, label] of cases) {
    it(`finds ${what} and reports line 3${label ? ` as "${label}"` : ""}`, () => {
      const found = scanText(`import os\n\n${line}\nprint("ok")\n`);
      expect(found.map((f) => [f.line, f.kind])).toEqual([[3, kind]]);
      if (label) expect(found[0]!.label).toBe(label);
      // The label names the kind and a public prefix; no part of the secret itself.
      expect(found[0]!.label).not.toMatch(/aB3dE5gH7j|AB3DE5GH7J|s3cr3t|abc123/);
    });
  }

  it("finds a password inside a multi-line .netrc machine block, on the password's line", () => {
    const netrc = ["machine urs.earthdata.nasa.gov", "  login ada", "", "  password hunter2-but-longer", ""];
    expect(kinds(netrc.join("\n"))).toEqual([[4, "netrc"]]);
    expect(kinds(["default", "login anonymous", "password me@example.org"].join("\n"))).toEqual([
      [3, "netrc"],
    ]);
  });

  it("counts lines across \\r\\n endings and reports every line with a credential", () => {
    const text = [`a = "${FAKE.hf}"`, "b = 1", `c = "${FAKE.akia}" # and ${FAKE.hf}`, FAKE.pem("RSA ")].join(
      "\r\n",
    );
    expect(kinds(text)).toEqual([
      [1, "huggingface"],
      [3, "aws"],
      [3, "huggingface"],
      [4, "private-key"],
    ]);
  });
});

describe("scanText lets ordinary code through", () => {
  const nearMisses: Array<[string, string]> = [
    [
      "hf_ identifiers",
      "from huggingface_hub import hf_hub_download\nhf_repo = 'org/model'\nhf_token = os.environ['HF_TOKEN']",
    ],
    ["a short hf_ string", 'x = "hf_abc"'],
    ["an hf_ name made of words", "hf_this_is_a_very_long_variable_name_for_the_repo = 1"],
    ["hf_ inside a longer word", `my${FAKE.hf}`],
    [
      "the word password in prose and comments",
      "# the password is read from the keyring\nPassword: see the wiki\nask for a password reset",
    ],
    [
      "a password parameter",
      "def login(user, password):\n    return client.auth(user=user, password=password)",
    ],
    [
      "machine learning prose",
      "machine learning is fun\nlogin to the cluster, then type your password when asked",
    ],
    [
      "a .netrc written from the environment",
      `echo "machine hf.co login me password $HF_TOKEN" >> ~/.netrc\nmachine x.org login u password \${TOKEN}`,
    ],
    ["AWS's documented example key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"],
    ["AKIA with too few characters", `key = "${FAKE.akia.slice(0, 16)}"`],
    ["AKIA inside a longer run", `id = "X${FAKE.akia}"`],
    ["a short ghp_ string", `t = "ghp_${alnum(20)}"`],
    ["a PEM public key or certificate", "-----BEGIN PUBLIC KEY-----\n-----BEGIN CERTIFICATE-----"],
  ];
  for (const [what, text] of nearMisses) {
    it(`does not flag ${what}`, () => {
      expect(scanText(text)).toEqual([]);
    });
  }
});

describe("scanBytes", () => {
  it("skips a binary file: a NUL byte in the first 8 KiB", () => {
    const bin = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1]), Buffer.from(`\n${FAKE.hf}\n`)]);
    expect(scanBytes(bin)).toBeNull();
    expect(BINARY_SNIFF_BYTES).toBe(8 * 1024);
  });

  it("scans a text file whose first NUL comes after 8 KiB", () => {
    const late = Buffer.concat([
      Buffer.from(`${"x".repeat(BINARY_SNIFF_BYTES)}\n${FAKE.hf}\n`),
      Buffer.from([0]),
    ]);
    expect(scanBytes(late)?.map((f) => [f.line, f.kind])).toEqual([[2, "huggingface"]]);
  });

  it("skips a file over 5 MiB and scans one of exactly 5 MiB", () => {
    expect(SCAN_MAX_BYTES).toBe(5 * 1024 * 1024);
    const head = Buffer.from(`${FAKE.hf}\n`);
    const exact = Buffer.concat([head, Buffer.alloc(SCAN_MAX_BYTES - head.length, "a")]);
    expect(scanBytes(exact)?.map((f) => f.kind)).toEqual(["huggingface"]);
    expect(scanBytes(Buffer.concat([exact, Buffer.from("a")]))).toBeNull();
  });

  it("reads bytes that are not valid UTF-8 without throwing", () => {
    const text = Buffer.concat([Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0a]), Buffer.from(`k=${FAKE.ghp}\n`)]);
    expect(scanBytes(text)?.map((f) => [f.line, f.kind])).toEqual([[2, "github"]]);
  });
});

describe("isSecretPath", () => {
  const secret = [
    ".env",
    "experiments/exp1/.env.local",
    ".envrc",
    "common/.envrc",
    ".netrc",
    "credentials.json",
    "configs/gcp_credentials.json",
    "token.txt",
    "experiments/exp1/api_key.txt",
    "secrets.yaml",
    "configs/secrets.json",
    "secrets.py",
    "wandb.secret",
    "configs/DB.SECRET",
    "hf_token",
    "id_ed25519.pub",
    "server.pem",
    "common/.ssh/config",
    "common/.aws/config",
  ];
  for (const p of secret) it(`refuses ${p}`, () => expect(isSecretPath(p)).toBe(true));

  const fine = [
    "train.py",
    "configs/base.yaml",
    "environment.yml",
    "common/tokenizer.py",
    "my_token.txt.py",
    "secret_sauce.py",
    "common/secrets/README.md",
    "credentials_check.py",
    "keys.py",
  ];
  for (const p of fine) it(`lets ${p} through`, () => expect(isSecretPath(p)).toBe(false));
});

"""The secret shapes the redactor knows, one case each, and their near-miss twins.

Shared by the redaction tests (tests/unit/test_redact_shapes.py) and lint's TT015 tests
(tests/unit/test_lint_secrets.py): lint must see exactly what redaction would catch.
"""

from __future__ import annotations

from tracetui.record.redact_rules import REPLACEMENT

R = REPLACEMENT
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # 40 characters, AWS's documented example
GH_BODY = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # 36 characters
GITHUB_PAT = "github_pat_11ABCDEFG0123456789abc_" + "x9" * 29 + "Z"
OPENAI = "sk-" + "T3BlbkFJ" * 6
OPENAI_PROJECT = "sk-proj-" + "Ab1_Cd2-" * 8
ANTHROPIC = "sk-ant-api03-" + "xY9-" * 20 + "AA"
STRIPE_BODY = "4eC39HqLyjWDarjtT1zdp7dc"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
KEY_BODY = "MIIEowIBAAKCAQEA\nQWERTYUIOPASDFGH\n"

# (id = shape name, text, exact redacted text)
SHAPES = [
    ("password", "login password=hunter2 ok", f"login password={R} ok"),
    ("passwd-colon", "passwd: hunter2", f"passwd: {R}"),
    ("pwd", "pwd=hunter2", f"pwd={R}"),
    ("db-pwd", "DB_PWD=hunter2", f"DB_PWD={R}"),
    ("db-password", "DB_PASSWORD=hunter2", f"DB_PASSWORD={R}"),
    ("mysql-root-password", "MYSQL_ROOT_PASSWORD=r00tpass", f"MYSQL_ROOT_PASSWORD={R}"),
    ("password-yaml", "  password: hunter2\n  user: ann", f"  password: {R}\n  user: ann"),
    (
        "password-json",
        '{"user": "ann", "password": "correct horse"}',
        f'{{"user": "ann", "password": "{R}"}}',
    ),
    ("password-json-escaped", '{\\"password\\": \\"hunter2\\"}', f'{{\\"password\\": \\"{R}\\"}}'),
    ("password-single-quoted", "DB_PASSWORD='p@ss w0rd'", f"DB_PASSWORD='{R}'"),
    ("password-arrow", "'password' => 'hunter2'", f"'password' => '{R}'"),
    ("password-confirmation", "password_confirmation=hunter2", f"password_confirmation={R}"),
    ("passphrase", "passphrase: open sesame", f"passphrase: {R} sesame"),
    (
        "password-in-query",
        "/login?user=ann&password=hunter2&next=/",
        f"/login?user=ann&password={R}&next=/",
    ),
    ("password-flag", "mysql --password hunter2 -h db", f"mysql --password {R} -h db"),
    ("password-flag-equals", "mysql --password=hunter2", f"mysql --password={R}"),
    ("db-password-flag", "tool --db-password s3cret", f"tool --db-password {R}"),
    ("api-key-flag", "tool --api-key abc123def", f"tool --api-key {R}"),
    ("token-flag", "tool --token abcdef", f"tool --token {R}"),
    ("api-key", "api_key=abcd1234", f"api_key={R}"),
    ("api-dash-key", "api-key: abcd1234", f"api-key: {R}"),
    ("openai-api-key-env", "OPENAI_API_KEY=abc123", f"OPENAI_API_KEY={R}"),
    ("x-api-key-header", "X-Api-Key: 0123abcd", f"X-Api-Key: {R}"),
    ("token-env", "GITHUB_TOKEN=abc123def456", f"GITHUB_TOKEN={R}"),
    ("client-secret-json", '"client_secret": "s3cr3t-value"', f'"client_secret": "{R}"'),
    ("secret-key-env", "SECRET_KEY=django-insecure-4f9a2c1e", f"SECRET_KEY={R}"),
    ("bearer", "Authorization: Bearer abcdefgh12345678", f"Authorization: Bearer {R}"),
    ("bearer-upper", "Authorization: BEARER abcdefgh12345678", f"Authorization: BEARER {R}"),
    ("bearer-lower", "authorization: bearer abcdefgh12345678", f"authorization: bearer {R}"),
    ("basic-auth", "Authorization: Basic dXNlcjpwYXNzd29yZA==", f"Authorization: Basic {R}"),
    (
        "basic-auth-json",
        '{"Authorization": "Basic dXNlcjpwYXNz"}',
        f'{{"Authorization": "Basic {R}"}}',
    ),
    (
        "url-credentials",
        "clone https://ann:hunter2@git.example.com/repo.git",
        f"clone https://ann:{R}@git.example.com/repo.git",
    ),
    (
        "url-credentials-postgres",
        "postgres://billing:s3cret@db:5432/billing",
        f"postgres://billing:{R}@db:5432/billing",
    ),
    ("url-credentials-no-user", "redis://:s3cret@cache:6379/0", f"redis://:{R}@cache:6379/0"),
    ("url-credentials-at-in-password", "https://ann:p@ss@host/x", f"https://ann:{R}@host/x"),
    ("aws-key", "key AKIAIOSFODNN7EXAMPLE used", f"key {R} used"),
    ("aws-session-key", "ASIAIOSFODNN7EXAMPLE", R),
    ("aws-secret-ini", f"aws_secret_access_key = {AWS_SECRET}", f"aws_secret_access_key = {R}"),
    ("aws-secret-env", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", f"AWS_SECRET_ACCESS_KEY={R}"),
    ("aws-secret-json", f'"SecretAccessKey": "{AWS_SECRET}"', f'"SecretAccessKey": "{R}"'),
    (
        "aws-secret-spaced",
        f"SecretAccessKey    {AWS_SECRET}  expires",
        f"SecretAccessKey    {R}  expires",
    ),
    ("github-ghp", f"token ghp_{GH_BODY} used", f"token {R} used"),
    ("github-gho", f"gho_{GH_BODY}", R),
    ("github-ghu", f"ghu_{GH_BODY}", R),
    ("github-ghs", f"ghs_{GH_BODY}", R),
    ("github-ghr", f"ghr_{GH_BODY}", R),
    ("github-pat", f"export PAT={GITHUB_PAT}", f"export PAT={R}"),
    (
        "github-in-url",
        f"https://x-access-token:ghs_{GH_BODY}@github.com/o/r",
        f"https://x-access-token:{R}@github.com/o/r",
    ),
    ("openai-key", f"key: {OPENAI}", f"key: {R}"),
    ("openai-project-key", f"using {OPENAI_PROJECT} now", f"using {R} now"),
    ("anthropic-key", f"({ANTHROPIC})", f"({R})"),
    ("openai-key-env", f"OPENAI_API_KEY={OPENAI_PROJECT}", f"OPENAI_API_KEY={R}"),
    ("stripe-secret", f"sk_live_{STRIPE_BODY}", R),
    ("stripe-restricted", f"rk_live_{STRIPE_BODY}", R),
    ("stripe-test", f"stripe sk_test_{STRIPE_BODY}", f"stripe {R}"),
    ("jwt", f"session {JWT} ok", f"session {R} ok"),
    ("jwt-unsigned", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjMifQ.", R),
    ("slack-bot", "xoxb-1234567890-abcdefghij", R),
    ("slack-user", "token xoxp-1234567890-abcdefghij", f"token {R}"),
    (
        "private-key-rsa",
        f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}-----END RSA PRIVATE KEY-----\nafter",
        f"{R}\nafter",
    ),
    (
        "private-key-openssh",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BODY}-----END OPENSSH PRIVATE KEY-----",
        R,
    ),
    (
        "private-key-pgp",
        f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n{KEY_BODY}-----END PGP PRIVATE KEY BLOCK-----",
        R,
    ),
    ("private-key-unterminated", f"x\n-----BEGIN PRIVATE KEY-----\n{KEY_BODY}", f"x\n{R}"),
]

# (id, text): secret-looking but no secret; each must come out unchanged.
NEAR_MISSES = [
    ("password-hint", "password_hint=the dog's name"),
    ("password-file-flag", "--password-file /run/secrets/db"),
    ("password-stdin-flag", "docker login --password-stdin"),
    ("password-flag-then-flag", "mysql --password --host db"),
    ("password-null", '"password": null'),
    ("password-masked", "password: ********"),
    ("password-bool", "require_password: true"),
    ("password-prose", "reset your password. then log in"),
    ("password-keyword-alone", "password="),
    ("shell-pwd", "PWD=/home/ann"),
    ("shell-oldpwd", "OLDPWD=/tmp"),
    ("api-key-id", "api_key_id=42"),
    ("api-keys-count", "api_keys=3"),
    ("max-tokens", "max_tokens=4096"),
    ("token-count", "token_count=12"),
    ("parser-token", "SyntaxError: Unexpected token: identifier"),
    ("token-short", "token: }"),
    ("bearer-prose", "the bearer of bad news"),
    ("basic-prose", "basic understanding of the Authorization header"),
    ("basic-challenge", 'WWW-Authenticate: Basic realm="api"'),
    ("url-no-credentials", "https://example.com:8443/path?q=1"),
    ("url-at-in-path", "https://example.com/users/@ann"),
    ("git-ssh", "git@github.com:org/repo.git"),
    ("mailto", "mailto:ann@example.com"),
    ("aws-key-short", "AKIA1234"),
    ("aws-secret-39-chars", f"SecretAccessKey {AWS_SECRET[:39]}"),
    ("base64-40-without-key-name", f"digest {AWS_SECRET}"),
    ("git-sha", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8"),
    ("github-short", "ghp_example"),
    ("gh-pages", "push to gh_pages"),
    ("sk-in-prose", "a risk-free, task-based plan"),
    ("sk-slug", "branch sk-refactor-the-whole-module"),
    ("sk-short", "sk-123"),
    ("stripe-publishable", f"pk_live_{STRIPE_BODY}"),
    ("stripe-prefix-only", "sk_live_ keys go here"),
    ("eyj-alone", "eyJ"),
    ("jwt-one-part", "eyJhbGciOiJIUzI1NiJ9"),
    ("jwt-two-parts", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0"),
    ("slack-short", "xoxb-123"),
    ("public-key", "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----"),
    ("already-redacted", f"password={R} Bearer {R} https://u:{R}@h token={R}"),
]

package workspace

// DefaultDeny is the deny list used when [Options.Deny] is nil: the names
// of files that hold credentials, from two maintained catalogues of them,
// with the version-control directories.
//
//   - Bagel v0.7.1 (BoostSecurity's scanner of developer workstations for
//     exposed credentials): the file patterns its probes read
//     (pkg/config/config.go), less those that hold no credential of their
//     own (shell profiles, SSH known_hosts, chat logs).
//   - EarlyBird v4.6.1 (American Express's secret scanner, which carries
//     gitrob's list of sensitive file names on): its filename rules in the
//     key and credential categories (config/rules/filename.yaml), less the
//     broad ones that name ordinary source files (settings.py,
//     database.yml, *.log, anything containing "backup").
//   - Firejail 0.9.80 (etc/inc/disable-common.inc): the credential stores
//     its "top secret" and cloud sections hide in a home directory.
//   - Names none of them lists that hold passwords or tokens as commonly:
//     .pgpass, .my.cnf and .mylogin.cnf, credentials.json and
//     client_secret*.json (Google OAuth clients), service-account key
//     files, secrets.yaml, kubeconfig files.
//
// Patterns without a slash match a name at any depth; the others start
// with **/ for the same reason. Names of private keys are matched by their
// usual prefixes (id_rsa…) and suffixes (…_ed25519) rather than by id_*,
// which would hide source files ("id_test.go").
//
// docs/sandbox.md lists the sources; the test of this list checks each
// entry against the names it must deny.
var DefaultDeny = []string{
	// Version control internals (see [Workspace.Prepare] for what
	// commands may do with them).
	".git", ".hg", ".svn",
	// Environment files.
	".env", ".env.*", ".envrc",
	// Private keys, key stores and password databases.
	"*.pem", "*.key", "*.p8", "*.p12", "*.pfx", "*.pkcs12", "*.ppk", "*.keystore", "*.jks",
	"*.kdb", "*.kdbx", "*.keychain", "*.agilekeychain", "*.ovpn", "*.tblk", "otr.private_key",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*_rsa", "*_dsa", "*_ecdsa", "*_ed25519",
	"master.key",
	// Credential stores of command-line tools.
	".ssh/", ".gnupg/", ".aws/", ".azure/", ".oci/", ".kube/", "**/.config/gcloud/",
	"**/.docker/config.json", "**/.config/containers/auth.json", "**/.config/helm/registry/config.json",
	"**/.config/helm/repositories.yaml",
	".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", "**/.config/git/credentials",
	"**/.gem/credentials", "**/.cargo/credentials", "**/.cargo/credentials.toml",
	"**/.config/gh/hosts.yml", "**/.config/glab-cli/", "**/.config/hub",
	".vault-token", ".terraformrc", "terraform.rc", "**/.terraform.d/credentials.tfrc.json",
	"*.tfstate", "*.tfstate.*", "*.tfvars", "*.tfvars.json",
	".s3cfg", ".boto", ".passwd-s3fs", ".smbcredentials", ".fetchmailrc", ".msmtprc", "**/.davfs2/secrets",
	"**/.config/wireguard/", "**/.codex/auth.json", "**/.gemini/oauth_creds.json",
	"**/.local/share/opencode/auth.json", "credentials.xml",
	// Database, web server and cluster passwords.
	".pgpass", "pgpass.conf", ".my.cnf", ".mylogin.cnf", ".htpasswd",
	"credentials.json", "client_secret*.json", "*service-account*.json", "*service_account*.json",
	"secrets.yaml", "secrets.yml", "kubeconfig", "*.kubeconfig",
	// Histories, where typed passwords end up.
	".bash_history", ".zsh_history", ".sh_history", ".psql_history", ".mysql_history", ".python_history",
	".node_repl_history", ".irb_history",
}

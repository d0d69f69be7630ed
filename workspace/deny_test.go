package workspace

import "testing"

// TestDefaultDeny: the credential files the default deny list must cover,
// at the root and deeper, and ordinary source files it must leave alone.
func TestDefaultDeny(t *testing.T) {
	ws, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	denied := []string{
		// The eleven the issue found readable.
		".pgpass", ".vault-token", "terraform.tfstate", "credentials.json", ".config/gcloud/credentials.db",
		".htpasswd", "secrets.yaml", "kubeconfig", "service-account.json", ".terraformrc", ".my.cnf",
		// The rest of each family.
		".env", ".env.local", "config/.env.production", ".envrc", "deploy/prod.pem", "server.key", "cert.p12",
		"id_rsa", "id_ed25519.pub", "deploy_ed25519", "keys/app.jks", "vault.kdbx", ".ssh/config",
		".aws/credentials", "home/.aws/config", ".kube/config", ".azure/msal_token_cache.json",
		"home/u/.config/gcloud/application_default_credentials.json", ".docker/config.json",
		"home/.docker/config.json", ".config/containers/auth.json", ".netrc", "_netrc", ".npmrc", ".pypirc",
		".git-credentials", ".config/git/credentials", ".cargo/credentials.toml", ".gem/credentials",
		".config/gh/hosts.yml", ".terraform.d/credentials.tfrc.json", "terraform.tfstate.backup", "prod.tfvars",
		"infra/env.tfstate", "client_secret_123.apps.googleusercontent.com.json", "my-service-account-key.json",
		"gcp_service_account.json", "config/secrets.yml", "cluster.kubeconfig", ".mylogin.cnf", "pgpass.conf",
		"web/.htpasswd", "jenkins/credentials.xml", "vpn/office.ovpn", ".bash_history", ".psql_history",
		"config/master.key", ".git/config", ".hg/hgrc", ".codex/auth.json", ".gemini/oauth_creds.json",
		// Case and trailing dots do not matter.
		".ENV", ".Pgpass", "Terraform.TFSTATE", ".vault-token.",
	}
	allowed := []string{
		"main.go", "id_test.go", "internal/id/id.go", "crypto_rsa.go", "rsa.go", "keys.go", "key_test.go",
		"settings.py", "config.json", "package.json", "secrets.go", "docs/credentials.md", "environment.go",
		"env.go", "service.go", "terraform.tf", "main.tf", "variables.tf", "kube.go", "Makefile", "README.md",
		".gitignore", ".github/workflows/ci.yml", ".dockerignore", "docker-compose.yml", "go.sum", "pgpass.go",
	}
	for _, name := range denied {
		if _, err := ws.Check(name, Read); err == nil {
			t.Errorf("%s is not denied", name)
		}
	}
	for _, name := range allowed {
		if _, err := ws.Check(name, Read); err != nil {
			t.Errorf("%s is denied: %v", name, err)
		}
	}
}

// TestDenyExtends: a host appends to the default, and carves out of it.
func TestDenyExtends(t *testing.T) {
	ws, err := Open(t.TempDir(), &Options{Deny: append(append([]string{}, DefaultDeny...), "*.sqlite", "!example.tfvars")})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for name, want := range map[string]bool{"data.sqlite": true, ".env": true, "prod.tfvars": true, "example.tfvars": false} {
		if _, err := ws.Check(name, Read); (err != nil) != want {
			t.Errorf("%s: denied %v, want %v", name, err != nil, want)
		}
	}
}

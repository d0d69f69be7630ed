package process_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/tool"
)

func registryWith(t *testing.T, opts *tool.RegistryOptions, tools ...tool.Definer) *tool.Registry[struct{}] {
	t.Helper()
	r := tool.NewRegistry[struct{}](opts)
	require.NoError(t, r.Add(tools...))
	return r
}

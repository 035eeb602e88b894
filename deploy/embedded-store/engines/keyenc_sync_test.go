package engines

import (
	"os"
	"strings"
	"testing"
)

// The copy in keyenc.go must stay the store's encoding, byte for byte past the package line.
func TestKeyencIsTheStores(t *testing.T) {
	orig, err := os.ReadFile("../keyenc.go")
	if err != nil {
		t.Skip("the store's keyenc.go is not beside this module")
	}
	copied, err := os.ReadFile("keyenc.go")
	if err != nil {
		t.Fatal(err)
	}
	body := func(s string, pkg string) string {
		i := strings.Index(s, "package "+pkg+"\n")
		if i < 0 {
			t.Fatalf("no package %s line", pkg)
		}
		return s[i+len("package "+pkg+"\n"):]
	}
	if body(string(orig), "main") != body(string(copied), "engines") {
		t.Fatal("keyenc.go differs from the store's ../keyenc.go: copy it again")
	}
}

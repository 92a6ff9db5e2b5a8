// pulumi-garm-sdkgen writes a language SDK for a Pulumi package schema with the code generators of
// github.com/pulumi/pulumi/pkg/v3, the same ones the language hosts of that release run for `pulumi package gen-sdk`.
// It exists because the CLI delegates gen-sdk to a language host's GeneratePackage, and the hosts that implement it
// are modules the Go module proxy does not serve (README, "SDKs").
//
// Usage: pulumi-garm-sdkgen <schema.json> <python|go|nodejs> <out dir>
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	nodejsgen "github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

const tool = "pulumi-garm-sdkgen"

func main() {
	if len(os.Args) != 4 {
		fail("usage: pulumi-garm-sdkgen <schema.json> <python|go|nodejs> <out dir>")
	}
	data, err := os.ReadFile(os.Args[1])
	check(err)
	var spec schema.PackageSpec
	check(json.Unmarshal(data, &spec))
	pkg, diags, err := schema.BindSpec(spec, schema.NewNullLoader(), schema.ValidationOptions{})
	check(err)
	if diags.HasErrors() {
		fail(fmt.Sprintf("%s is not a valid package schema: %v", os.Args[1], diags))
	}
	var files map[string][]byte
	switch os.Args[2] {
	case "python":
		files, err = pygen.GeneratePackage(tool, pkg, nil, nil)
	case "go":
		files, err = gogen.GeneratePackage(tool, pkg, nil)
	case "nodejs":
		files, err = nodejsgen.GeneratePackage(tool, pkg, nil, nil, false, nil)
	default:
		fail(fmt.Sprintf("language %q is not one of python, go, nodejs", os.Args[2]))
	}
	check(err)
	out := os.Args[3]
	check(os.RemoveAll(out))
	for name, content := range files {
		path := filepath.Join(out, name)
		check(os.MkdirAll(filepath.Dir(path), 0o755))
		check(os.WriteFile(path, content, 0o644))
	}
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "pulumi-garm-sdkgen: "+msg)
	os.Exit(1)
}

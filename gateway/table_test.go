package gateway

import (
	"bytes"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/corehq/core/internal/auth"
)

var update = flag.Bool("update", false, "rewrite golden files and corpus expectations")

const corpusSep = "----------\n"

// demoService is a Connect service descriptor that exists only in tests, so
// the corpus can exercise the Connect rules without linking real services.
func demoService(t testing.TB) protoreflect.ServiceDescriptor {
	t.Helper()
	fdp := &descriptorpb.FileDescriptorProto{
		Name:        proto.String("core/demo/v1alpha1/demo.proto"),
		Package:     proto.String("core.demo.v1alpha1"),
		Syntax:      proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Empty")}},
		Service: []*descriptorpb.ServiceDescriptorProto{{
			Name: proto.String("DemoService"),
			Method: []*descriptorpb.MethodDescriptorProto{
				{Name: proto.String("Get"), InputType: proto.String(".core.demo.v1alpha1.Empty"), OutputType: proto.String(".core.demo.v1alpha1.Empty")},
				{Name: proto.String("Put"), InputType: proto.String(".core.demo.v1alpha1.Empty"), OutputType: proto.String(".core.demo.v1alpha1.Empty")},
			},
		}},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return fd.Services().Get(0)
}

func ok(http.ResponseWriter, *http.Request) error { return nil }

// corpusRegistry registers the handlers the corpus names.
func corpusRegistry(t testing.TB) *Registry {
	reg := NewRegistry()
	reg.Handle("graph", ok)
	reg.Handle("events", ok)
	reg.Handle("static", ok)
	reg.Service("DemoService", demoService(t), func(...connect.HandlerOption) (string, http.Handler) { return "/demo/", http.NotFoundHandler() })
	return reg
}

// TestInvalidCorpus runs every file of testdata/routes/invalid: the input,
// a separator line, then the exact error. Files named registry-* are
// checked against a registry too; the others test the table alone.
func TestInvalidCorpus(t *testing.T) {
	files, err := filepath.Glob("../testdata/routes/invalid/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name+"_is_refused", func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			input, want, found := strings.Cut(string(data), corpusSep)
			if !found {
				t.Fatalf("%s has no separator line %q", f, strings.TrimSpace(corpusSep))
			}
			var reg *Registry
			if strings.HasPrefix(name, "registry-") {
				reg = corpusRegistry(t)
			}
			_, err = Load("routes.yaml", []byte(input), reg)
			if err == nil {
				t.Fatalf("Load accepted %s", f)
			}
			got := err.Error() + "\n"
			if *update {
				if err := os.WriteFile(f, []byte(input+corpusSep+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("error differs (run with -update to accept)\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func TestEveryProblemNamesItsRow(t *testing.T) {
	_, err := Load("routes.yaml", []byte(`
- name: a
  path: /api/v1/a
  method: GET
  handler: graph
- name: b
  path: /api/v1/b
  method: PUT
  grant: console=read
  handler: graph
`), nil)
	le, isLoad := err.(*LoadError)
	if !isLoad || len(le.Problems) != 2 {
		t.Fatalf("want 2 problems, got %v", err)
	}
	for _, want := range []string{"row 0 (a): grant: is required", "row 1 (b): method:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestExposureDefaultsToLoopback(t *testing.T) {
	tab, err := Load("routes.yaml", []byte("- name: a\n  path: /api/v1/a\n  method: GET\n  grant: console=read\n  handler: graph\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Rows[0].Exposure; len(got) != 1 || got[0] != ExposureLoopback {
		t.Fatalf("exposure = %v", got)
	}
	if len(tab.Select(ExposureShare, nil)) != 0 {
		t.Fatal("a row without exposure reached the share listener")
	}
}

func TestRegisteringAHandlerTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	reg := NewRegistry()
	reg.Handle("graph", ok)
	reg.Handle("graph", ok)
}

// TestRoutesYAMLIsSorted keeps the real table sorted by path, then method,
// so a reviewer finds a route where they expect it.
func TestRoutesYAMLIsSorted(t *testing.T) {
	for _, file := range []string{"../routes.yaml", "../snapshot.routes.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rows, problems := decode(data)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		key := func(r Row) string {
			p := r.Path
			if r.Procedure != "" {
				p = "/" + r.Procedure
			}
			return p + " " + r.Method
		}
		if !sort.SliceIsSorted(rows, func(i, j int) bool { return key(rows[i]) < key(rows[j]) }) {
			var keys []string
			for _, r := range rows {
				keys = append(keys, key(r))
			}
			t.Errorf("%s is not sorted by path, then method:\n%s", file, strings.Join(keys, "\n"))
		}
	}
}

func TestMatrixGolden(t *testing.T) {
	tab, err := Load("routes.yaml", mustRead(t, "../routes.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := []byte(Matrix(tab))
	golden := "../testdata/golden/routes.txt"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := mustRead(t, golden); !bytes.Equal(got, want) {
		t.Fatalf("the exposure matrix changed; review it and run `go test ./gateway -update`\n got:\n%s\nwant:\n%s", got, want)
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob("../testdata/routes/invalid/*.txt")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		input, _, _ := strings.Cut(string(data), corpusSep)
		f.Add([]byte(input))
	}
	if data, err := os.ReadFile("../routes.yaml"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reg := corpusRegistry(t)
		tab, err := Load("routes.yaml", data, reg)
		if err != nil {
			le, ok := err.(*LoadError)
			if !ok || len(le.Problems) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			return
		}
		for _, r := range tab.Rows {
			if r.Name == "" || r.Handler == "" || r.Public() != (r.grant == GrantNone) || !r.Exposed(ExposureLoopback) {
				t.Fatalf("accepted an incomplete row: %+v", r)
			}
			if r.Exposed(ExposureShare) && r.Grant != auth.ConsoleRead && !r.Public() {
				t.Fatalf("accepted a share row with grant %s", r.Grant)
			}
		}
	})
}

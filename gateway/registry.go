package gateway

import (
	"fmt"

	"connectrpc.com/connect"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/corehq/core/internal/suggest"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// HandlerFunc is a route's handler. It returns an error instead of writing
// one; the gateway's error writer answers for it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Registry maps the handler names routes.yaml uses to code. Registering a
// name twice is a programming error and panics at start-up.
type Registry struct {
	plain    map[string]HandlerFunc
	services map[string]service
	// plainOnly registries take no Connect service, so the rule that every
	// generated service linked into the binary is registered is not
	// theirs.
	plainOnly bool
}

type service struct {
	desc  protoreflect.ServiceDescriptor
	build ServiceBuilder
}

// ServiceBuilder makes a generated Connect service's handler with more
// handler options: a generated New...ServiceHandler bound to its
// implementation. The gateway builds one handler per row, limited to the
// row's max_body after decompression, so that a compressed body cannot
// expand past the limit its compressed size passed.
type ServiceBuilder func(opts ...connect.HandlerOption) (path string, h http.Handler)

// NewRegistry returns an empty registry for a table that routes every
// generated core.* Connect service: the server's.
func NewRegistry() *Registry {
	return &Registry{plain: map[string]HandlerFunc{}, services: map[string]service{}}
}

// NewPlainRegistry returns an empty registry for a table of plain routes
// only, such as the snapshot server's.
func NewPlainRegistry() *Registry {
	r := NewRegistry()
	r.plainOnly = true
	return r
}

// Handle registers a plain handler under name.
func (g *Registry) Handle(name string, fn HandlerFunc) {
	g.claim(name)
	g.plain[name] = fn
}

// Service registers a generated Connect service under name, by the builder
// of its handler. Every method of desc must then have exactly one row,
// naming this handler.
func (g *Registry) Service(name string, desc protoreflect.ServiceDescriptor, build ServiceBuilder) {
	if g.plainOnly {
		panic(fmt.Sprintf("gateway: service %q registered in a registry of plain routes", name))
	}
	g.claim(name)
	g.services[name] = service{desc: desc, build: build}
}

func (g *Registry) claim(name string) {
	if name == "" {
		panic("gateway: handler registered without a name")
	}
	_, p := g.plain[name]
	_, s := g.services[name]
	if p || s {
		panic(fmt.Sprintf("gateway: handler %q registered twice", name))
	}
}

// Names lists the registered handler names, sorted.
func (g *Registry) Names() []string {
	names := slices.AppendSeq(slices.Collect(maps.Keys(g.plain)), maps.Keys(g.services))
	slices.Sort(names)
	return names
}

// check applies the rules that tie the table to the code: every handler
// named is registered and every registered one is named; a Connect row names
// its own service; every procedure of every registered service has exactly
// one row; every generated core.* service linked into the binary is
// registered.
func (g *Registry) check(rows []Row) []Problem {
	var problems []Problem
	named := map[string]bool{}
	procRows := map[string]int{}
	for i := range rows {
		r := &rows[i]
		if r.Handler == "" {
			continue
		}
		named[r.Handler] = true
		bad := func(msg string) {
			problems = append(problems, Problem{Row: r.Index, Name: r.Name, Line: r.lineOf("handler"), Field: "handler", Msg: msg})
		}
		_, isPlain := g.plain[r.Handler]
		svc, isService := g.services[r.Handler]
		switch {
		case !isPlain && !isService:
			bad(quote(r.Handler) + " is not registered" + suggest.DidYouMean(r.Handler, g.Names()) + "; registered handlers: " + strings.Join(g.Names(), ", "))
		case r.Procedure == "" && isService:
			bad(quote(r.Handler) + " is a Connect service; name it from a row with a procedure")
		case r.Procedure != "" && isPlain:
			bad(quote(r.Handler) + " is a plain handler; a Connect row names the service that implements its procedure")
		case r.Procedure != "":
			svcName, method, _ := strings.Cut(r.Procedure, "/")
			if string(svc.desc.FullName()) != svcName {
				bad(quote(r.Handler) + " implements " + string(svc.desc.FullName()) + ", not " + svcName)
			} else if svc.desc.Methods().ByName(protoreflect.Name(method)) == nil {
				problems = append(problems, Problem{Row: r.Index, Name: r.Name, Line: r.lineOf("procedure"), Field: "procedure",
					Msg: svcName + " has no method " + method + "; it has " + strings.Join(methodNames(svc.desc), ", ")})
			} else if j, dup := procRows[r.Procedure]; dup {
				problems = append(problems, Problem{Row: r.Index, Name: r.Name, Line: r.lineOf("procedure"), Field: "procedure",
					Msg: "already routed by row " + itoa(j) + "; every procedure has exactly one row"})
			} else {
				procRows[r.Procedure] = r.Index
			}
		}
	}
	for _, name := range g.Names() {
		if !named[name] {
			problems = append(problems, Problem{Row: -1, Msg: "handler " + quote(name) + " is registered in code but no row names it"})
		}
	}
	registered := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(g.services)) {
		svc := g.services[name]
		registered[string(svc.desc.FullName())] = true
		for _, m := range methodNames(svc.desc) {
			proc := string(svc.desc.FullName()) + "/" + m
			if _, ok := procRows[proc]; !ok {
				problems = append(problems, Problem{Row: -1, Msg: "procedure " + proc + " has no row; every procedure needs exactly one, with its own grant"})
			}
		}
	}
	if g.plainOnly {
		return problems
	}
	for _, full := range generatedServices() {
		if !registered[full] {
			problems = append(problems, Problem{Row: -1, Msg: "generated service " + full + " is not registered; register its handler and give each procedure a row"})
		}
	}
	return problems
}

func methodNames(d protoreflect.ServiceDescriptor) []string {
	ms := d.Methods()
	out := make([]string, ms.Len())
	for i := range out {
		out[i] = string(ms.Get(i).Name())
	}
	return out
}

// generatedServices lists the core.* services whose generated code is
// linked into this binary.
func generatedServices() []string {
	var out []string
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(string(fd.Package()), "core.") {
			return true
		}
		svcs := fd.Services()
		for i := 0; i < svcs.Len(); i++ {
			out = append(out, string(svcs.Get(i).FullName()))
		}
		return true
	})
	slices.Sort(out)
	return out
}

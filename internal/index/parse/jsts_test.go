package parse

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// dtsCorpus lists the TypeScript declaration files the fast path is held
// to: those of the node_modules trees of jsCorpus (JSFAST_CORPUS adds
// roots).
func dtsCorpus(t testing.TB) []string { return nodeModulesFiles(t, isDeclarationFile) }

func TestDeclarationsFastAgreesWithTreeSitter(t *testing.T) {
	files := dtsCorpus(t)
	files = nodeModulesSample(files)
	dtsCase.agreesOnCorpus(t, files, nil)
}

// TestDeclarationsFastAgreesOnMutatedFiles is
// TestJavaScriptFastAgreesOnMutatedFiles for declaration files.
func TestDeclarationsFastAgreesOnMutatedFiles(t *testing.T) {
	files := dtsCorpus(t)
	n := 2000
	if testing.Short() {
		n = 100
	}
	if v, err := strconv.Atoi(os.Getenv("JSFAST_MUTATIONS")); err == nil {
		n = v
	}
	r := rand.New(rand.NewPCG(29, uint64(n)))
	toks := []string{",", "(", ")", "[", "]", "{", "}", ":", ";", " = ", "=>", "|", "&", "<", ">", ">>", "?", "`", "${",
		"\"", "//", "/*", "*/", "\n", " extends ", " infer ", " keyof ", " typeof ", " readonly ", "declare ", "export ",
		"import ", "type ", "interface ", "namespace ", "abstract ", "static ", " is ", "asserts ", "new ", ".", "...", "-", "!"}
	dtsCase.agreesOnMutations(t, files, n, r, toks, nil)
}

func FuzzDeclarationsFast(f *testing.F) {
	for _, s := range dtsFastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		dtsCase.check(t, "f.d.ts", src)
	})
}

// dtsFastSeeds are small declaration files for the fuzzer.
var dtsFastSeeds = []string{
	"import x = require(\"y\");\nimport type { A } from \"a\";\nimport { type B, C } from \"b\";\nimport * as ns from \"ns\";\nexport type { D } from \"d\";\nexport { type E } from \"e\";\n",
	"declare function f(a: ns.T): void;\nexport declare function g<T extends keyof U = any>(a?: T, ...rest: string[]): a is string;\ndeclare const x: number, y: ns.U<string>;\nexport function h(this: Window, {a, b}: O): asserts a is B;\n",
	"export declare class K<T> extends L<T> implements M, ns.N { private a; protected static readonly b?: number; m(): void; abstract n?(): void; get p(): string; set p(v: string); [key: string]: any; constructor(x: number, private y?: string); #q; static [Symbol.iterator](): Iterator<T>; 'quoted'(): void }\n",
	"export interface I<T> extends J { (x: number): string; new (x: number): I<T>; readonly [k: string]: T; m?(): void; p: typeof ns.v; q: ns.A.B, r\n s: string }\n",
	"export type Q<T> = T extends (infer U)[] ? U : { [K in keyof T]?: T[K] } | `a${string}` | [a: string, b?: number, ...c: T[]];\ntype R = { readonly [K in keyof T as `get${K & string}`]-?: () => T[K] };\ntype S = | 'a' | 'b' & {};\ntype F = (a: string) => void; type G = new () => X; type H = abstract new (...a: any[]) => object;\n",
	"declare enum E { A = 1, B, 'c' = 'd' }\nexport declare namespace N { const z: number; namespace O.P { type Q = 1 } }\ndeclare module \"m\" { export function h(): void; }\ndeclare module 'short';\ndeclare global { interface Window { w: number } }\nexport = x;\nexport as namespace X;\nexport default interface Z {}\nexport const enum CE { A }\n",
	"type A = Array<Array<string>>; type B = Map<string, Set<number>>=; type C = unique symbol; type D = readonly string[]; type E = -1 | 0x10 | true | null | undefined | void | never | this; type T = typeof import('x'); let v: import('y').Z<W>;\n",
	"export default class {}\nexport default function f(): void;\nexport abstract class A { abstract m(): void; protected abstract get n(): number; }\nexport declare let l: string;\ndeclare var v;\n",
	"type L = infer U extends string ? U : never;\n",
	"declare function f(): void { }\n",
	"type A = B\n[]\n",
	"export default abstract class {}\n",
	"export default abstract class implements I {}\n",
}

func TestDeclarationsFastSeeds(t *testing.T) {
	taken := 0
	for _, s := range dtsFastSeeds {
		dtsCase.check(t, "seed.d.ts", []byte(s))
		if _, why := parseDeclarationsFast("seed.d.ts", []byte(s)); why == "" {
			taken++
		}
	}
	if taken < len(dtsFastSeeds)/2 {
		t.Errorf("the fast path took only %d of %d seeds", taken, len(dtsFastSeeds))
	}
}

// Command filerefs counts the references between the files of Go packages: each use, in one
// file, of a function, method, type, variable, constant or field declared in another file of the
// same package (names declared inside functions are not counted; test files are left out). It
// is how entangled a package's files are, the measure issue 33 reports for app/.
//
//	cd tools/filerefs && go run . ../.. ./app ./app/talk ./app/chatview
//
// It is a module of its own, so that Parley's module does not depend on golang.org/x/tools.
package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/packages"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: filerefs <module folder> <package pattern>...")
		os.Exit(2)
	}
	dir, patterns := os.Args[1], os.Args[2:]
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedDeps | packages.NeedImports, Dir: dir, BuildFlags: []string{"-tags=nolibopusfile"}}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			fmt.Fprintln(os.Stderr, e)
		}
		refs, pairs := 0, map[[2]string]int{}
		distinct := map[[3]string]bool{}
		for i, f := range p.Syntax {
			user := filepath.Base(p.CompiledGoFiles[i])
			ast.Inspect(f, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				obj := p.TypesInfo.Uses[id]
				if obj == nil || obj.Pkg() != p.Types || !obj.Pos().IsValid() {
					return true
				}
				if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != p.Types.Scope() {
					return true // a local
				}
				if _, ok := obj.(*types.Label); ok {
					return true
				}
				if obj.Parent() != nil && obj.Parent() != p.Types.Scope() {
					return true // declared in a function
				}
				decl := filepath.Base(p.Fset.Position(obj.Pos()).Filename)
				if decl == user {
					return true
				}
				refs++
				pairs[[2]string{user, decl}]++
				distinct[[3]string{user, decl, obj.Name()}] = true
				return true
			})
		}
		type kv struct {
			k [2]string
			n int
		}
		var list []kv
		for k, n := range pairs {
			list = append(list, kv{k, n})
		}
		sort.Slice(list, func(i, j int) bool { return list[i].n > list[j].n })
		fmt.Printf("%s: %d files, %d uses of names from another file, %d distinct (file, file, name), %d pairs of files\n", p.PkgPath, len(p.Syntax), refs, len(distinct), len(pairs))
	}
}

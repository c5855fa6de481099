package locale

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

var update = flag.Bool("update", false, "write translations/en.json from the sentences in the code")

// sentence is one string the code hands to the translations.
type sentence struct {
	key    string // the bundles' key: the English (for a plural, its "other" form)
	one    string // a plural's English for 1, when the code says it (i18n.N)
	text   string // the English, where the key is not (lang.X): its fallback
	plural bool
	at     string // where, for messages
}

// sourceDirs are the folders whose Go files hold sentences the window shows: everything but the
// CLI (English, as gh and git are), the service and the tools.
var skipped = []string{"third_party", "cli", "tools", "e2e", "bin", "build", "dist", "archive", ".git"}

// collect reads every call of lang.L / N / X / XN and i18n.T / N in the module's Go files
// (tests excluded) and returns their sentences; a call whose sentence is not a string literal
// is an error, because no bundle could hold it.
func collect(t *testing.T) map[string]sentence {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]sentence{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			if slices.Contains(skipped, rel) || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if filepath.Dir(path) == filepath.Join(root, "app", "locale") {
			return nil // the bridge from i18n to lang, which passes sentences on
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if s, ok := sentenceOf(t, fset, call); ok {
					add(t, found, s)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// sentenceOf is the sentence a call of lang.L / N / X / XN or i18n.T / N hands over, if call is
// one; a sentence that is not a string literal is an error.
func sentenceOf(t *testing.T, fset *token.FileSet, call *ast.CallExpr) (sentence, bool) {
	t.Helper()
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return sentence{}, false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || (pkg.Name != "lang" && pkg.Name != "i18n") {
		return sentence{}, false
	}
	at := fset.Position(call.Pos()).String()
	lit := func(i int) string {
		if i >= len(call.Args) {
			t.Errorf("%s: %s.%s without its sentence", at, pkg.Name, sel.Sel.Name)
			return ""
		}
		b, ok := call.Args[i].(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			t.Errorf("%s: %s.%s is given something other than a string literal, which no bundle can hold", at, pkg.Name, sel.Sel.Name)
			return ""
		}
		s, err := strconv.Unquote(b.Value)
		if err != nil {
			t.Errorf("%s: %v", at, err)
		}
		return s
	}
	var s sentence
	switch pkg.Name + "." + sel.Sel.Name {
	case "lang.L", "lang.Localize", "i18n.T":
		s = sentence{key: lit(0)}
	case "lang.N", "lang.LocalizePlural":
		s = sentence{key: lit(0), plural: true}
	case "lang.X", "lang.LocalizeKey":
		s = sentence{key: lit(0), text: lit(1)}
	case "lang.XN", "lang.LocalizePluralKey":
		s = sentence{key: lit(0), text: lit(1), plural: true}
	case "i18n.N":
		s = sentence{key: lit(1), one: lit(0), plural: true}
	default:
		return sentence{}, false
	}
	s.at = at
	return s, s.key != ""
}

// add records s in found, checking it against the calls of the same sentence seen before.
func add(t *testing.T, found map[string]sentence, s sentence) {
	t.Helper()
	if slices.Contains(reserved, strings.ToLower(s.key)) {
		t.Errorf("%s: %q is one of go-i18n's reserved words: give it a key with lang.X", s.at, s.key)
	}
	prev, ok := found[s.key]
	if ok && prev.plural != s.plural {
		t.Errorf("%s: %q is a plural at one call and not at %s", s.at, s.key, prev.at)
	}
	if ok && prev.one != "" && s.one == "" {
		s.one = prev.one
	}
	found[s.key] = s
}

// reserved are go-i18n's words that a bundle cannot hold as keys beside others.
var reserved = []string{"id", "description", "hash", "leftdelim", "rightdelim", "zero", "one", "two", "few", "many", "other", "translation"}

// forms are the plural forms each language's rule uses (go-i18n's CLDR rules for whole numbers).
var forms = map[string][]string{
	"en": {"one", "other"}, "de": {"one", "other"}, "nl": {"one", "other"},
	"es": {"one", "many", "other"}, "fr": {"one", "many", "other"}, "it": {"one", "many", "other"}, "pt_BR": {"one", "many", "other"},
	"pl": {"one", "few", "many", "other"}, "uk": {"one", "few", "many", "other"},
	"zh_Hans": {"other"},
}

// placeholder matches fmt's verbs and go-i18n's template fields.
var placeholder = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]|\{\{[^}]*\}\}`)

// verbs is the sorted list of s's placeholders, with an explicit index dropped: a translation
// may reorder them.
func verbs(s string) []string {
	v := placeholder.FindAllString(s, -1)
	for i := range v {
		v[i] = regexp.MustCompile(`\[\d+\]`).ReplaceAllString(v[i], "")
	}
	sort.Strings(v)
	return v
}

func readBundle(t *testing.T, code string) map[string]any {
	t.Helper()
	b, err := bundles.ReadFile("translations/" + code + ".json")
	if err != nil {
		t.Fatalf("%s: no bundle: %v", code, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s.json: %v", code, err)
	}
	return m
}

// TestBundles_MatchTheCode fails when a sentence of the code has no entry in a language's
// bundle, an entry is not used by the code, a translation drops or adds a placeholder, or a
// plural lacks a form its language needs. go test ./app/locale -update rewrites en.json.
func TestBundles_MatchTheCode(t *testing.T) {
	code := collect(t)
	if len(code) < 50 {
		t.Fatalf("only %d sentences found in the code: the walk missed the window", len(code))
	}
	if *update {
		writeEnglish(t, code)
	}
	for _, l := range Languages {
		if _, err := bundles.ReadFile("translations/" + l.Code + ".json"); err != nil {
			t.Errorf("%s: no bundle: %v", l.Code, err)
			continue
		}
		b := readBundle(t, l.Code)
		var missing, unused []string
		for k, s := range code {
			v, ok := b[k]
			if !ok {
				missing = append(missing, k)
				continue
			}
			checkEntry(t, l.Code, s, v)
		}
		for k := range b {
			if _, ok := code[k]; !ok {
				unused = append(unused, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(unused)
		if len(missing) > 0 {
			t.Errorf("%s.json lacks %d of the code's %d sentences, first %q", l.Code, len(missing), len(code), missing[:min(len(missing), 5)])
		}
		if len(unused) > 0 {
			t.Errorf("%s.json has %d entries no code uses, first %q", l.Code, len(unused), unused[:min(len(unused), 5)])
		}
	}
}

// layouts are the keys whose values are Go time layouts: a translation writes the day and the
// month with numbers (Go writes month names in English only).
var layouts = map[string]bool{"layout.time": true, "layout.day-time": true, "2 Jan": true, "2 Jan 2006": true}

func checkEntry(t *testing.T, lang string, s sentence, v any) {
	t.Helper()
	if str, ok := v.(string); ok && layouts[s.key] && lang != "en" {
		shown := time.Date(2026, time.November, 27, 15, 4, 0, 0, time.UTC).Format(str)
		if strings.IndexFunc(shown, unicode.IsLetter) >= 0 || !strings.ContainsAny(shown, "0123456789") {
			t.Errorf("%s.json: the layout %q shows 27 November as %q: it must write the date with numbers", lang, s.key, shown)
		}
	}
	want := verbs(s.key)
	if s.text != "" {
		want = verbs(s.text)
	}
	if !s.plural {
		str, ok := v.(string)
		if !ok || strings.TrimSpace(str) == "" {
			t.Errorf("%s.json: %q is not a sentence", lang, s.key)
			return
		}
		if got := verbs(str); !slices.Equal(got, want) {
			t.Errorf("%s.json: %q has placeholders %v where the English has %v", lang, s.key, got, want)
		}
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s.json: %q is a plural, and needs the forms %v", lang, s.key, forms[lang])
		return
	}
	for _, f := range forms[lang] {
		str, ok := m[f].(string)
		if !ok || strings.TrimSpace(str) == "" {
			t.Errorf("%s.json: %q lacks its %q form", lang, s.key, f)
			continue
		}
		if got := verbs(str); !slices.Equal(got, want) && !(f == "one" && len(got) == 0) {
			t.Errorf("%s.json: %q's %q form has placeholders %v where the English has %v", lang, s.key, f, got, want)
		}
	}
}

// writeEnglish rewrites en.json: each sentence to itself, each plural to its forms (the English
// for 1 from i18n.N, or kept from the file for lang.N).
func writeEnglish(t *testing.T, code map[string]sentence) {
	t.Helper()
	old := map[string]any{}
	if b, err := os.ReadFile("translations/en.json"); err == nil {
		_ = json.Unmarshal(b, &old)
	}
	out := map[string]any{}
	for k, s := range code {
		if !s.plural {
			out[k] = k
			if s.text != "" {
				out[k] = s.text
			}
			continue
		}
		one := s.one
		if m, ok := old[k].(map[string]any); ok && one == "" {
			one, _ = m["one"].(string)
		}
		if one == "" {
			one = k
			t.Logf("en.json: %q needs its English for 1 (\"one\")", k)
		}
		out[k] = map[string]string{"one": one, "other": k}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("translations/en.json", append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "wrote translations/en.json: %d sentences\n", len(out))
}

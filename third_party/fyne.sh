#!/bin/sh
# third_party/fyne is Fyne, as published, with Parley's patch (third_party/fyne.patch) on top;
# go.mod's replace directive builds the app with it. This script is the only way it changes.
#
#   third_party/fyne.sh check   fails unless third_party/fyne is exactly the published module
#                               (its checksum pinned below, and verified by go against the
#                               checksum database) less the pruned files, plus the patch
#   third_party/fyne.sh sync    rebuilds third_party/fyne that way (after editing the patch, or
#                               with VERSION and SUM changed for a new Fyne)
#   third_party/fyne.sh diff    prints the patch again from third_party/fyne (after editing it)
#   third_party/fyne.sh test    runs Fyne's own tests of the packages the patch changes, on the
#                               published module (tests included) plus the patch; the GLFW
#                               driver's are left out, since they open real windows, and so are
#                               those Fyne's CI leaves out (-tags ci: they need the machine's
#                               fonts, such as one with Hangul, or an OpenGL context)
#   third_party/fyne.sh upstream
#                               checks the changes prepared for Fyne (third_party/upstream/*.patch,
#                               see its README.md): each must apply alone to the published module
#                               (tests included), and the packages it touches build and pass
#                               go vet, and the tests it adds pass (the GLFW driver's are built
#                               and vetted, not run). About 20 s with a warm build cache.
#
# Pruned: tests, test data, the fyne commands (cmd/) and the README's images (img/).
set -eu

VERSION=v2.8.1
SUM=h1:EztGuE2W3Qhd0cWVmU+h5rkzNezUD1To6UqsoLQYUIM=

root=$(cd "$(dirname "$0")/.." && pwd)
fork="$root/third_party/fyne"
patchfile="$root/third_party/fyne.patch"
go=${GO:-go}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The published module, outside Parley's module so that go.mod's replace does not apply, and
# into a module cache of its own, so that what is compared is freshly unpacked from a download
# that go checked against the checksum database (a copy already in the shared cache could have
# been changed since).
info=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod GOMODCACHE="$tmp/modcache" "$go" mod download -json "fyne.io/fyne/v2@$VERSION") || {
	echo "third_party/fyne.sh: could not download fyne.io/fyne/v2@$VERSION through the Go module proxy: check the network or GOPROXY." >&2
	exit 1
}
dir=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
sum=$(printf '%s\n' "$info" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')
if [ "$sum" != "$SUM" ]; then
	echo "third_party/fyne.sh: fyne.io/fyne/v2@$VERSION has checksum $sum, not the pinned $SUM: do not use it." >&2
	exit 1
fi

mkdir "$tmp/pristine"
(cd "$dir" && find . -type f ! -name '*_test.go' ! -path '*/testdata/*' ! -path './cmd/*' ! -path './img/*' ! -path './.github/*' -print0 |
	tar --null -T - -cf -) | tar -C "$tmp/pristine" -xf -
chmod -R u+w "$tmp/pristine"

case "${1:-}" in
check)
	cp -R "$tmp/pristine" "$tmp/patched"
	(cd "$tmp/patched" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	if ! diff -r "$tmp/patched" "$fork" >"$tmp/diff"; then
		cat "$tmp/diff" >&2
		echo "third_party/fyne is not Fyne $VERSION plus third_party/fyne.patch (above, what differs). Change Fyne only through the patch: edit third_party/fyne, run third_party/fyne.sh diff, then third_party/fyne.sh sync." >&2
		exit 1
	fi
	echo "third_party/fyne is Fyne $VERSION plus third_party/fyne.patch."
	;;
sync)
	cp -R "$tmp/pristine" "$tmp/patched"
	(cd "$tmp/patched" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	# Beside the old one first, so that an interruption never leaves half a fork.
	rm -rf "$fork.new" "$fork.old"
	cp -R "$tmp/patched" "$fork.new"
	mv "$fork" "$fork.old"
	mv "$fork.new" "$fork"
	rm -rf "$fork.old"
	echo "third_party/fyne is now Fyne $VERSION plus third_party/fyne.patch."
	;;
test)
	cp -R "$dir" "$tmp/full"
	chmod -R u+w "$tmp/full"
	(cd "$tmp/full" && patch -p1 --quiet --no-backup-if-mismatch <"$patchfile")
	pkgs=$(sed -n 's|^+++ b/\(.*\)/[^/]*$|./\1/|p' "$patchfile" | sort -u | grep -v '^./internal/driver/glfw/$')
	echo "Fyne's tests of the patched packages:" $pkgs
	# shellcheck disable=SC2086 # one argument per package
	# The two subtests that check the cursor half way through a fade are skipped: the patch
	# switches it on and off instead (entry_cursor_anim.go says why); the others of that test run.
	(cd "$tmp/full" && GOWORK=off GOFLAGS=-mod=mod "$go" test -count=1 -tags ci \
		-skip 'TestEntryCursorAnim/animation_(changes_from_opaque_to_dimmed|starts_fading_out_again)' $pkgs)
	;;
diff)
	# diff exits 1 when the trees differ, which is the point here.
	# (without the files' times, so that the patch changes only when the code does; editors'
	# and patch's leftovers are not part of it)
	cp -R "$fork" "$tmp/b"
	mv "$tmp/pristine" "$tmp/a"
	find "$tmp/b" \( -name '*~' -o -name '*.orig' -o -name '*.rej' -o -name '.*.swp' \) -exec rm -f {} +
	rc=0
	(cd "$tmp" && diff -ruN a b) >"$tmp/patch" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "third_party/fyne.sh: diff failed (exit $rc); third_party/fyne.patch is unchanged." >&2
		exit 1
	fi
	sed -E 's/^((---|\+\+\+) [^	]*)	.*$/\1/' "$tmp/patch" >"$patchfile"
	echo "third_party/fyne.patch now holds what third_party/fyne changes in Fyne $VERSION."
	;;
upstream)
	# Each patch alone, on a fresh copy of the published module. -trimpath keeps the copy's path
	# out of the build cache's keys, so what a patch does not change is built once, not once a
	# patch and a run.
	found=0
	for p in "$root"/third_party/upstream/*.patch; do
		[ -f "$p" ] || continue
		found=$((found + 1))
		name=$(basename "$p")
		rm -rf "$tmp/up"
		cp -R "$dir" "$tmp/up"
		chmod -R u+w "$tmp/up"
		if ! (cd "$tmp/up" && patch -p1 --batch --forward --quiet --no-backup-if-mismatch <"$p") >"$tmp/up.log" 2>&1; then
			cat "$tmp/up.log" >&2
			echo "third_party/fyne.sh: $name does not apply to Fyne $VERSION on its own." >&2
			exit 1
		fi
		# The packages the patch touches, and the tests it adds ("dir TestName" a line).
		pkgs=$(awk '/^\+\+\+ b\// { d = substr($2, 3); if (sub(/\/[^\/]*$/, "", d)) print "./" d "/"; else print "./" }' "$p" | sort -u)
		added=$(awk '/^\+\+\+ b\// { f = substr($2, 3); next }
			f ~ /_test\.go$/ && /^\+func Test[A-Za-z0-9_]*\(/ {
				t = $0; sub(/^\+func /, "", t); sub(/\(.*/, "", t)
				d = f; if (!sub(/\/[^\/]*$/, "", d)) d = "."
				print d, t
			}' "$p")
		echo "$name: applies; go build and go vet" $pkgs
		# shellcheck disable=SC2086 # one argument per package
		(cd "$tmp/up" && GOWORK=off GOFLAGS="-mod=mod -trimpath" "$go" build $pkgs && GOWORK=off GOFLAGS="-mod=mod -trimpath" "$go" vet $pkgs)
		for pkg in $pkgs; do
			d=${pkg#./}
			d=${d%/}
			[ -n "$d" ] || d=.
			[ "$d" != internal/driver/glfw ] || continue
			run=$(printf '%s\n' "$added" | awk -v d="$d" '$1 == d { printf "%s%s", sep, $2; sep = "|" }')
			[ -n "$run" ] || continue
			echo "$name: go test -run '^($run)\$' $pkg"
			(cd "$tmp/up" && GOWORK=off GOFLAGS="-mod=mod -trimpath" "$go" test -count=1 -run "^($run)\$" "$pkg")
		done
	done
	if [ "$found" -eq 0 ]; then
		echo "third_party/fyne.sh: no patches in third_party/upstream." >&2
		exit 1
	fi
	echo "The $found changes in third_party/upstream each apply alone to Fyne $VERSION, build, pass go vet and the tests they add."
	;;
*)
	echo "usage: third_party/fyne.sh check|sync|diff|test|upstream" >&2
	exit 2
	;;
esac

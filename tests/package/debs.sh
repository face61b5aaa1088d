#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian packages (debian/): copy the source tree without its build
# folders and without git (as a release tarball or a Debian source package
# has it), build the .debs with dpkg-buildpackage -us -uc -b, check them
# with lintian (any error or warning fails), check that the versions of
# CMake, <nxsim/common.h> and debian/changelog agree, then unpack the three
# packages into a root and build the README example against it: with
# pkg-config, and with find_package(nxsim) for the shared library, the
# static one (both installed side by side) and the driver's add_test().
# Usage: debs.sh SRCDIR WORK CC
# Exit 77 (a skip) when dpkg-buildpackage or lintian is missing.
set -eu
srcdir=$1
work=$2
cc=$3

for tool in dpkg-buildpackage lintian dh; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: no $tool (tools/deps --package)"
		exit 77
	fi
done

step() {
	echo "debs.sh: $*" >&2
}

rm -rf "$work"
mkdir -p "$work/src"
ver=$(sed -n 's/^project(nxsim VERSION \([0-9.]*\).*/\1/p' \
	"$srcdir/CMakeLists.txt")
tree="$work/src/libnxsim-$ver"
mkdir "$tree"
# Every file but build output and version control.
(cd "$srcdir" && tar -cf - --exclude='./build*' --exclude=./.git \
	--exclude='./debian/.debhelper' --exclude='./debian/tmp' .) |
	(cd "$tree" && tar -xf -)

step "versions"
hdr=$(sed -n 's/^#define NXSIM_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' \
	"$srcdir/include/nxsim/common.h" | paste -sd.)
deb=$(dpkg-parsechangelog -l "$srcdir/debian/changelog" -S Version)
if [ "$hdr" != "$ver" ] || [ "${deb%%-*}" != "$ver" ]; then
	echo "FAIL: versions differ: CMakeLists.txt $ver," \
		"common.h $hdr, debian/changelog $deb"
	exit 1
fi

step "dpkg-buildpackage -us -uc -b"
start=$(date +%s)
if ! (cd "$tree" && dpkg-buildpackage -us -uc -b) \
	>"$work/build.log" 2>&1; then
	tail -n 60 "$work/build.log"
	echo "FAIL: dpkg-buildpackage (log: $work/build.log)"
	exit 1
fi
step "built in $(($(date +%s) - start)) s"
# A warning of the build (dh_missing, dpkg-shlibdeps, dpkg-gensymbols)
# fails the check as lintian's do.
if grep -E '^dpkg-(shlibdeps|gensymbols): warning|dh_missing: warning' \
	"$work/build.log"; then
	echo "FAIL: dpkg-buildpackage warned (log: $work/build.log)"
	exit 1
fi

step "lintian"
changes=$(ls "$work"/src/libnxsim_"$ver"_*.changes)
if ! lintian --fail-on error,warning "$changes" >"$work/lintian.log" 2>&1
then
	cat "$work/lintian.log"
	echo "FAIL: lintian"
	exit 1
fi
cat "$work/lintian.log"

step "unpack and consume"
root="$work/root"
for deb in "$work"/src/*.deb; do
	dpkg-deb -x "$deb" "$root"
done
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir="$root/usr/lib/$ma"
for f in libnxsim.a libnxsim.so cmake/nxsim/nxsim-static-targets.cmake \
	cmake/nxsim/nxsim-shared-targets.cmake \
	cmake/nxsim/nxsim-tools-targets.cmake pkgconfig/nxsim.pc; do
	if [ ! -e "$libdir/$f" ]; then
		echo "FAIL: the packages hold no $libdir/$f"
		exit 1
	fi
done
for man in nxsim nxsim-sweep nxsim-bench nxsim-kvm; do
	if [ ! -s "$root/usr/share/man/man1/$man.1.gz" ]; then
		echo "FAIL: no man page $man(1)"
		exit 1
	fi
done
export LD_LIBRARY_PATH="$libdir"

PKG_CONFIG_PATH="$libdir/pkgconfig"
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
"$cc" "$srcdir/examples/quickstart.c" -o "$work/quickstart-pc" \
	$(pkg-config --cflags --libs nxsim)
"$work/quickstart-pc" >/dev/null
unset PKG_CONFIG_PATH

for kind in shared static; do
	b="$work/cmake-$kind"
	cmake -S "$srcdir/tests/install/consumer" -B "$b" \
		-DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_C_COMPILER="$cc" \
		-DNXSIM_COMPONENT="$kind" \
		-DEXAMPLE="$srcdir/examples/quickstart.c" \
		-DSCRIPT="$srcdir/examples/selftest.nxs" \
		-DPLUGINS="$srcdir/examples/plugins" >"$b.log" 2>&1 ||
		{ cat "$b.log"; echo "FAIL: configure ($kind)"; exit 1; }
	cmake --build "$b" >>"$b.log" 2>&1 ||
		{ cat "$b.log"; echo "FAIL: build ($kind)"; exit 1; }
	"$b/quickstart" >/dev/null
	ctest --test-dir "$b" --output-on-failure >>"$b.log" 2>&1 ||
		{ cat "$b.log"; echo "FAIL: add_test ($kind)"; exit 1; }
	if [ "$kind" = shared ] && ! ldd "$b/quickstart" | grep -q libnxsim.so
	then
		echo "FAIL: the shared consumer links no libnxsim.so"
		exit 1
	fi
	if [ "$kind" = static ] && ldd "$b/quickstart" | grep -q libnxsim.so
	then
		echo "FAIL: the static consumer links libnxsim.so"
		exit 1
	fi
done
echo "PASS: libnxsim0, libnxsim-dev, nxsim built, lintian-clean and used"

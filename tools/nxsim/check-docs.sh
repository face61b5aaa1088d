#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# docs/driver.md has an entry for every verb "nxsim --help" lists.
# usage: check-docs.sh NXSIM DRIVER_MD
set -eu
"$1" --help | grep '^  [a-z]' | while read -r group word rest; do
	case $word in
	[a-z]*) verb="$group $word" ;;
	*) verb=$group ;;
	esac
	if ! grep -qF "\`$verb" "$2"; then
		echo "$2 lacks \"$verb\""
		exit 1
	fi
done

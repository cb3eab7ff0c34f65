#!/usr/bin/env bash
# A OneTouch Verio Reflect that stops answering once it has taken its third READ RECORD command:
# the import fails naming the meter and that it stopped answering, stores nothing; plugged in
# again, the next import is complete. The steps are verio-unplug.sh's.
VERIO_FAULT=silence exec "$(dirname "$0")/verio-unplug.sh" "$@"

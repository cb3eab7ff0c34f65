#!/usr/bin/env bash
# An Accu-Chek Guide that stops answering in the middle of its segment transfer: the import fails
# naming the meter and that it stopped answering, stores nothing; plugged in again, the next
# import is complete. The steps are accuchek-unplug.sh's.
ACCUCHEK_FAULT=silence exec "$(dirname "$0")/accuchek-unplug.sh" "$@"

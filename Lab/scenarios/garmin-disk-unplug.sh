#!/usr/bin/env bash
# A Garmin USB-disk watch unplugged in the middle of an import, after its first FIT file was
# read: the import stores that file whole, fails naming the watch and the next file; plugged in
# again, the next import stores the rest and equals a replay of all of them. The steps are
# garmin-disk-live.sh's.
GARMIN_FAULT=unplug exec "$(dirname "$0")/garmin-disk-live.sh" "$@"

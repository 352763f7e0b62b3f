#!/bin/bash
# build-dcbsim.sh - build the dcbsim test module (tests/vm/dcbsim) for the VM kernel: see
# build-module.sh, which builds it (and netdevsim). Prints the path of the cached dcbsim.ko.
exec "$(dirname "$0")/build-module.sh" dcbsim

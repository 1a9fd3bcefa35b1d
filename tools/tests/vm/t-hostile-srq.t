#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The hostile-input suite of t-hostile.t with use_srq=1: every channel of
# the TPG receives through the device's shared receive queue, whose buffers
# go back to the SRQ on every error path the suite reaches.  The SRQ has
# 8191 buffers and the send queue 1024 entries, and the credit overrun
# case sends 8000 WRITEs: more receive completions than a completion queue
# sized for the channel's own ring holds.
# shellcheck disable=SC2034 # read by the sourced t-hostile.t
SRPT_HOSTILE_SRQ=1
. "$SRPT_REPO/tools/tests/vm/t-hostile.t"

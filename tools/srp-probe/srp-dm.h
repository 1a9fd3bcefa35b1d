/* SPDX-License-Identifier: GPL-2.0 */
/* srp-probe --dm: the Device Management client (srp-dm.c). */
#ifndef SRP_DM_H
#define SRP_DM_H

/* Run "srp-probe --dm" with its own arguments; returns the exit status. */
int srp_dm_main(int argc, char **argv);

#endif /* SRP_DM_H */

/* probe/memory.h - memory-channel naming, shared by the memory probe and its tests */
#ifndef NODEAUDIT_MEMORY_H
#define NODEAUDIT_MEMORY_H

/*
 * What a DIMM's locator and bank locator say about where it sits.  Vendors
 * spell it many ways; recognised (case and separators ignored):
 *   ChannelA-DIMM0, Channel A DIMM 1     channel A
 *   DIMM_A1, DIMMA1, DIMM A1             channel A (DIMM 1 of it)
 *   CPU1_DIMM_A1, P1-DIMMA1              package "1", channel A
 *   P0_Node0_Channel0_Dimm0              package "0", channel "N0-0"
 *   P0 CHANNEL A (bank) + DIMM 0         package "0", channel A
 *   CPU_SrcID#0_MC#0_Chan#1_DIMM#0       package "0", channel "MC0-1" (EDAC)
 *   PROC 1 DIMM 3                        package "1", channel unknown
 *   A1, B2                               "bare": a letter and a number; only
 *                                        a channel when the whole set of slots
 *                                        looks like one (the probe decides)
 *   DIMM 0 / BANK 0, A0..A3 / Bank0/1    nothing: the channel is unknown
 * The package label is as spelt (1-based or 0-based); the probe numbers
 * the distinct labels 0..n-1.
 */
struct mem_loc {
	char pkg[16];     /* "" when not named */
	char chan[32];    /* "" when not named */
	int bare;         /* "A1": letter and number, see above */
	char letter;
	int num;
};

/* 1 when a channel was found, else 0 (pkg may still be set). */
int mem_parse_locator(const char *locator, const char *bank, struct mem_loc *out);

#endif

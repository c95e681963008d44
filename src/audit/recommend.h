/* audit/recommend.h - which built-in profile fits a node (tuned-adm recommend's idea) */
#ifndef NODEAUDIT_RECOMMEND_H
#define NODEAUDIT_RECOMMEND_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* The profile for virtual guests, which plain `nodeaudit` uses on one. */
#define GUEST_PROFILE "agent-vm-guest"

/*
 * The built-in profile that fits the node whose facts root holds (the
 * probe's tree), with the reason in *why (one sentence, the facts it rests
 * on; malloc'd, whole: it quotes the hypervisor's name as the machine names
 * it): a virtual guest gets GUEST_PROFILE, a host with PCIe accelerators
 * agent-accelerator-host, a CPU of fewer than 16 cores (or a hybrid one of
 * fewer than 16 performance cores) agent-orchestrator, else
 * agent-cpu-inference.  Decides only; reads nothing.
 */
const char *profile_recommend(const cJSON *root, char **why);

/* 1: the facts say a virtual guest; 0: bare metal or unknown. */
int facts_is_guest(const cJSON *root);

#endif

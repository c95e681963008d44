/* audit/check-observe.h - the observe functions the catalog's rows name */
#ifndef NODEAUDIT_CHECK_OBSERVE_H
#define NODEAUDIT_CHECK_OBSERVE_H

#include <cjson/cJSON.h>
#include "audit/check-catalog.h"

/* Each fills o from the facts (struct check's observe). */
void obs_host_virt(const cJSON *root, const char *key, struct obs *o);
void obs_cpu_smt(const cJSON *root, const char *key, struct obs *o);
void obs_cpu_governor(const cJSON *root, const char *key, struct obs *o);
void obs_cpu_isa(const cJSON *root, const char *key, struct obs *o);
void obs_cpu_pcores(const cJSON *root, const char *key, struct obs *o);
void obs_cpu_max_mhz(const cJSON *root, const char *key, struct obs *o);
void obs_numa_balancing(const cJSON *root, const char *key, struct obs *o);
void obs_numa_mem_balanced(const cJSON *root, const char *key, struct obs *o);
void obs_memory_ecc(const cJSON *root, const char *key, struct obs *o);
void obs_memory_ecc_errors(const cJSON *root, const char *key, struct obs *o);
void obs_mem_channels_ratio(const cJSON *root, const char *key, struct obs *o);
void obs_mem_channels_balanced(const cJSON *root, const char *key, struct obs *o);
void obs_mem_speed_ratio(const cJSON *root, const char *key, struct obs *o);
void obs_mem_per_core(const cJSON *root, const char *key, struct obs *o);
void obs_acc_width(const cJSON *root, const char *key, struct obs *o);
void obs_acc_speed(const cJSON *root, const char *key, struct obs *o);
void obs_acc_numa_known(const cJSON *root, const char *key, struct obs *o);
void obs_acc_numa_local(const cJSON *root, const char *key, struct obs *o);
void obs_acc_uplink(const cJSON *root, const char *key, struct obs *o);
void obs_acc_uplink_ratio(const cJSON *root, const char *key, struct obs *o);
void obs_acc_nic_switch(const cJSON *root, const char *key, struct obs *o);
void obs_nic_link(const cJSON *root, const char *key, struct obs *o);
void obs_nic_roce_ecn(const cJSON *root, const char *key, struct obs *o);
void obs_sysctl(const cJSON *root, const char *key, struct obs *o);
void obs_thp(const cJSON *root, const char *key, struct obs *o);
void obs_swap(const cJSON *root, const char *key, struct obs *o);
void obs_hugepages(const cJSON *root, const char *key, struct obs *o);
void obs_bench_efficiency(const cJSON *root, const char *key, struct obs *o);
void obs_cmdline(const cJSON *root, const char *key, struct obs *o);
void obs_process_cpuset(const cJSON *root, const char *key, struct obs *o);
void obs_process_quota(const cJSON *root, const char *key, struct obs *o);
void obs_process_memlock(const cJSON *root, const char *key, struct obs *o);
void obs_process_numa_calls(const cJSON *root, const char *key, struct obs *o);

#endif

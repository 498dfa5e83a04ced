// SPDX-License-Identifier: MIT
#include "libdrm_check.h"

#include <string.h>

int failures;

long long topo_prop(unsigned node, const char *key)
{
	char path[256], line[256], k[128];
	long long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), TOPO "/%u/properties", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", k, &v) == 2 && !strcmp(k, key)) {
			found = v;
			break;
		}
	fclose(f);
	return found;
}

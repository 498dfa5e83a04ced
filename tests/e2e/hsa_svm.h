/* SPDX-License-Identifier: MIT */
/*
 * hsa_e2e svm: ROCr's SVM API (hsa_amd_svm_*), part of hsa_e2e.c (uses its
 * setup, dispatch and report helpers).
 *
 * Where the GPUs have the SVM API (HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED:
 * kfdsim natively, a kernel with CONFIG_HSA_AMD_SVM), plain mmap'ed memory
 * given to the GPU with hsa_amd_svm_attributes_set is written by a
 * FILL_U32 dispatch at its CPU address and read back by the CPU; the
 * attributes read back are the ones set; a prefetch to the GPU completes
 * and leaves the contents alone. Where they have not (through vkfd, a
 * kernel without SVM), hsa_amd_svm_attributes_set must fail as it does on
 * such a kernel. The first line says which: "hsa_e2e: SVM API yes|no".
 */
#include <sys/mman.h>

#define SVM_PAGES 16

static int run_svm(void)
{
	const size_t size = SVM_PAGES * 4096;
	struct ctx c;
	bool svm = false;
	uint32_t *buf;
	hsa_status_t st;
	hsa_amd_svm_attribute_pair_t set[2], get[3];
	uint32_t bad = 0;

	setup(&c);
	CHECK_HSA(hsa_system_get_info((hsa_system_info_t)HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED, &svm));
	printf("hsa_e2e: SVM API %s\n", svm ? "yes" : "no");
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "hsa_e2e: mmap failed\n");
		return EXIT_SETUP;
	}
	for (uint32_t i = 0; i < size / 4; i++)
		buf[i] = i;
	set[0] = (hsa_amd_svm_attribute_pair_t){HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, c.gpu.handle};
	set[1] = (hsa_amd_svm_attribute_pair_t){HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY, 4};
	st = hsa_amd_svm_attributes_set(buf, size, set, 2);
	if (!svm) {
		/* ROCr passes the KFD's refusal on */
		report("svm_attributes_set refused", st == HSA_STATUS_ERROR);
		goto out;
	}
	report("svm_attributes_set", st == HSA_STATUS_SUCCESS);
	get[0] = (hsa_amd_svm_attribute_pair_t){HSA_AMD_SVM_ATTRIB_MIGRATION_GRANULARITY, 0};
	get[1] = (hsa_amd_svm_attribute_pair_t){HSA_AMD_SVM_ATTRIB_ACCESS_QUERY, c.gpu.handle};
	get[2] = (hsa_amd_svm_attribute_pair_t){HSA_AMD_SVM_ATTRIB_READ_ONLY, 1};
	st = hsa_amd_svm_attributes_get(buf, size, get, 3);
	report("svm_attributes_get", st == HSA_STATUS_SUCCESS);
	report("granularity and access read back",
	       st == HSA_STATUS_SUCCESS && get[0].value == 4 &&
		   get[1].attribute == HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE && get[2].value == 0);
	/* the GPU writes the CPU's pages at their CPU address */
	{
		struct {
			uint64_t dst;
			uint32_t value;
			uint32_t count;
		} k = {(uint64_t)(uintptr_t)buf, 0x5151f00du, (uint32_t)(size / 4 - 1)};
		bool ok = dispatch(&c, BUILTIN_FILL_U32, &k, sizeof(k));

		report("FILL_U32 into SVM memory", ok);
		for (uint32_t i = 0; ok && i < size / 4; i++)
			if (buf[i] != (i < size / 4 - 1 ? k.value : size / 4 - 1))
				bad++;
		report("CPU sees the GPU's writes", ok && bad == 0);
	}
	/* a prefetch to the GPU: completes, contents stay */
	{
		hsa_signal_t done = make_signal(&c, 1);
		bool ok = hsa_amd_svm_prefetch_async(buf, size, c.gpu, 0, NULL, done) ==
			  HSA_STATUS_SUCCESS;

		ok = ok && wait_signal(done);
		CHECK_HSA(hsa_signal_destroy(done));
		report("svm_prefetch_async to the GPU", ok);
		get[0] = (hsa_amd_svm_attribute_pair_t){HSA_AMD_SVM_ATTRIB_PREFETCH_LOCATION, 0};
		st = hsa_amd_svm_attributes_get(buf, size, get, 1);
		report("prefetch location is the GPU",
		       st == HSA_STATUS_SUCCESS && get[0].value == c.gpu.handle);
		report("contents survive the prefetch",
		       buf[0] == 0x5151f00du && buf[size / 4 - 1] == size / 4 - 1);
	}
out:
	munmap(buf, size);
	CHECK_HSA(hsa_queue_destroy(c.queue));
	CHECK_HSA(hsa_shut_down());
	printf("hsa_e2e: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}

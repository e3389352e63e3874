/* gpudiag lab — the guide's claims as experiments on this GPU. The harness and the labs live
 * in src/lab/ (lab.h documents how a lab is written); this file only connects the command. */
#include "commands.h"
#include "lab/lab.h"

const char cmd_lab_usage[] =
    "usage: gpudiag lab                 list the labs\n"
    "       gpudiag lab <name> [options] run one lab on the GPU\n"
    "       gpudiag lab help <name>      what one lab measures and how to read it\n"
    "\n"
    "Each lab runs kernel variants of one lesson of the guide, checks every variant's output\n"
    "against a CPU reference (outputs are poisoned before each run), then times it with CUDA\n"
    "events (warm-up, then the median, min and max of at least 10 runs), counts the bytes and\n"
    "FLOPs each variant moves, and compares them with the GPU's measured ceilings (from\n"
    "'gpudiag roofline') or, when none are cached, the datasheet, labelled as such. SM clock,\n"
    "power and throttle reasons are sampled with NVML during every variant.\n"
    "\n"
    "options (after the lab name):\n"
    "  --quick            smaller sizes: a fast look\n"
    "  --runs N           timed samples per variant (default 15, 10..64)\n"
    "  --size BYTES       the lab's main size (see 'gpudiag lab help <name>')\n"
    "  --shape SPEC       the lab's shapes as key=value pairs (fusion, attention)\n"
    "  --csv FILE         results as CSV ('-' = stdout)\n"
    "  --svg FILE         the lab's chart as SVG\n"
    "  --json             results as JSON on stdout (docs/json.md)\n"
    "  --device N         the GPU to use (default 0)\n"
    "\n"
    "exit: 0 ok, 2 usage (unknown lab), 3 no GPU, 4 a variant failed its correctness check\n";

int cmd_lab(struct gd_ctx *ctx, int argc, char **argv)
{
	return gd_lab_main(ctx, argc, argv);
}

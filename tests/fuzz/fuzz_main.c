// The libFuzzer entry point of one target: built once per target with
// -DORDO_FUZZ_TARGET=<name> (CMakeLists.txt, -DORDO_FUZZ=ON). See docs/fuzzing.md.
#include <string.h>

#include "fuzz.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    // encode/decode without the gpt2 vocab would fuzz only the byte tokenizer: say so loudly
    if ((strcmp(STR(ORDO_FUZZ_TARGET), "encode") == 0 ||
         strcmp(STR(ORDO_FUZZ_TARGET), "decode") == 0) &&
        !ordo_fuzz_have_gpt2()) {
        fprintf(stderr,
                "fuzz_%s: the gpt2 vocab did not load (set ORDO_VOCAB_DIR or run "
                "data/fetch.sh vocab)\n",
                STR(ORDO_FUZZ_TARGET));
        exit(2);
    }
    return 0;
}

#define CAT_(a, b) a##b
#define CAT(a, b)  CAT_(a, b)
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    CAT(ordo_fuzz_, ORDO_FUZZ_TARGET)(data, size);
    return 0;
}

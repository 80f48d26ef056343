// Placeholder until the data layer lands (issue 3): keeps the CLI table complete.
#include "train/commands.h"

ordo_status ordo_cmd_tokenize(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return ordo_error(ORDO_ERR_STATE, "not available yet");
}

// SHA-256 against the FIPS 180-2 / NIST example vectors (empty, "abc", the two-block 448-bit
// message, a million 'a' fed in uneven pieces), and a file against sha256sum when it exists.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sha256.h"
#include "test.h"

static void digest(const char *msg, char out[65]) {
    ordo_sha256 s;
    ordo_sha256_init(&s);
    ordo_sha256_update(&s, msg, strlen(msg));
    ordo_sha256_hex(&s, out);
}

int main(void) {
    char h[65];
    digest("", h);
    CHECK(strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    digest("abc", h);
    CHECK(strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", h);
    CHECK(strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    // 55 and 56 bytes: the padding fits in the block, or needs another one
    char m[57];
    memset(m, 'a', 56);
    m[55] = 0;
    digest(m, h);
    CHECK(strcmp(h, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318") == 0);
    m[55] = 'a', m[56] = 0;
    digest(m, h);
    CHECK(strcmp(h, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a") == 0);
    ordo_sha256 s;
    ordo_sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    for (size_t done = 0, k = 1; done < 1000000; done += k, k = k % 997 + 1)
        ordo_sha256_update(&s, a, done + k <= 1000000 ? k : 1000000 - done);
    ordo_sha256_hex(&s, h);
    CHECK(strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);

    // a file: the same digest as streamed bytes, and as sha256sum prints it
    char path[] = "/tmp/ordo_sha256_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        for (int i = 0; i < 300; i++) CHECK(write(fd, a, sizeof a) == (ssize_t)sizeof a);
        close(fd);
        char hf[65];
        CHECK(ordo_sha256_file(path, hf) == ORDO_OK);
        ordo_sha256_init(&s);
        for (int i = 0; i < 300; i++) ordo_sha256_update(&s, a, sizeof a);
        ordo_sha256_hex(&s, h);
        CHECK(strcmp(h, hf) == 0);
        char cmd[128], line[128] = "";
        snprintf(cmd, sizeof cmd, "sha256sum %s 2>/dev/null", path);
        FILE *p = popen(cmd, "r");
        if (p && fgets(line, sizeof line, p) && strlen(line) > 64) {
            line[64] = 0;
            CHECK(strcmp(line, hf) == 0);
        }
        if (p) pclose(p);
        unlink(path);
    }
    CHECK(ordo_sha256_file("/nonexistent/ordo", h) == ORDO_ERR_IO &&
          strstr(ordo_error_message(), "/nonexistent/ordo"));
    TEST_MAIN_END();
}

// ordo's hash is XXH3-64 (a published function: its known value for the empty input), the
// streaming form agrees with the one-shot form, the hex form round-trips, and bad hex is refused.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/hash.h"
#include "test.h"

int main(void) {
    // XXH3_64bits("", 0) as published by the xxHash project
    CHECK(ordo_hash64(NULL, 0) == 0x2D06800538D394C2ull);
    unsigned char data[100003];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 2654435761u >> 13);
    uint64_t whole = ordo_hash64(data, sizeof data);
    ordo_hasher h;
    ordo_hasher_init(&h);
    for (size_t at = 0; at < sizeof data; at += 777)
        ordo_hasher_update(&h, data + at, sizeof data - at < 777 ? sizeof data - at : 777);
    CHECK(ordo_hasher_digest(&h) == whole);
    data[5000] ^= 1; // one flipped bit changes the hash
    CHECK(ordo_hash64(data, sizeof data) != whole);
    data[5000] ^= 1;

    char hex[17];
    ordo_hash_hex(whole, hex);
    uint64_t back = 0;
    CHECK(strlen(hex) == 16 && ordo_hash_parse("t", hex, &back) == ORDO_OK && back == whole);
    CHECK(ordo_hash_parse("t", "0123", &back) == ORDO_ERR_FORMAT);
    CHECK(strstr(ordo_error_message(), "'0123'") && strstr(ordo_error_message(), "16 hex"));
    CHECK(ordo_hash_parse("t", "0123456789ABCDEF", &back) == ORDO_ERR_FORMAT);
    CHECK(ordo_hash_parse("t", NULL, &back) == ORDO_ERR_FORMAT);

    char path[] = "/tmp/ordo_test_hash_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, data, sizeof data) == (ssize_t)sizeof data);
    close(fd);
    uint64_t size = 0, fh = 0;
    CHECK(ordo_hash_file(path, &size, &fh) == ORDO_OK && size == sizeof data && fh == whole);
    unlink(path);
    CHECK(ordo_hash_file(path, &size, &fh) == ORDO_ERR_IO && strstr(ordo_error_message(), path));
    TEST_MAIN_END();
}

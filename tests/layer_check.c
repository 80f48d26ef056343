// Links one layer's whole archive against the layers below it (CMakeLists.txt, ordo_layer):
// a call from a layer into one above it has no definition here and fails the build.
int main(void) {
    return 0;
}

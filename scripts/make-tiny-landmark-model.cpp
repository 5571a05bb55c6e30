// Writes Tests/Fixtures/tiny-shape-predictor.dat: a tiny but valid dlib shape predictor (3 points, 2 cascades of
// 2 depth-2 trees over 4 feature pixels) for the landmark cache tests. It loads in microseconds, where the
// 68-point model takes seconds in a debug build. Its points mean nothing; only its format matters.
//   clang++ -std=c++17 scripts/make-tiny-landmark-model.cpp -ldlib -llapack -lblas -o /tmp/tiny && \
//     /tmp/tiny Tests/Fixtures/tiny-shape-predictor.dat
#include <dlib/image_processing/shape_predictor.h>

int main(int argc, char **argv) {
    if (argc != 2) return 64;
    dlib::matrix<float, 0, 1> initial(6);
    initial = 0.3, 0.35, 0.7, 0.35, 0.5, 0.75; // two eyes and a mouth, in the unit box
    std::vector<std::vector<dlib::impl::regression_tree>> forests(2);
    std::vector<std::vector<dlib::vector<float, 2>>> pixels(2);
    for (int c = 0; c < 2; c++) {
        pixels[c] = {{0.25f, 0.3f}, {0.75f, 0.3f}, {0.5f, 0.5f}, {0.5f, 0.8f}};
        for (int t = 0; t < 2; t++) {
            dlib::impl::regression_tree tree;
            tree.splits = {{0, 1, 3.0f * t}, {2, 3, -5.0f}, {1, 2, 7.5f}};
            for (int leaf = 0; leaf < 4; leaf++) {
                dlib::matrix<float, 0, 1> step(6);
                for (long i = 0; i < 6; i++) step(i) = 0.01f * float((leaf + 1) * (i % 3 == 0 ? 1 : -1) + c - t);
                tree.leaf_values.push_back(step);
            }
            forests[c].push_back(tree);
        }
    }
    dlib::serialize(argv[1]) << dlib::shape_predictor(initial, forests, pixels);
    return 0;
}

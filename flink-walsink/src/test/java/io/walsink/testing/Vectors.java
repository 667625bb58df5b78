package io.walsink.testing;

import java.util.Random;

/** Random vectors for search tests: Gaussian components, so neighbours are well separated. */
public final class Vectors {
    private Vectors() {}

    public static float[] gaussian(Random random, int dimension) {
        float[] v = new float[dimension];
        for (int i = 0; i < dimension; i++) {
            v[i] = (float) random.nextGaussian();
        }
        return v;
    }
}

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

    /** The squared L2 distance, as Lance reports {@code _distance} for an L2 index. */
    public static double squaredDistance(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            double d = a[i] - b[i];
            sum += d * d;
        }
        return sum;
    }
}

package io.walsink.examples;

import java.util.SplittableRandom;
import org.apache.flink.types.Row;

/**
 * Generated documents that a search can be checked against: document {@code i} is about topic
 * {@code i % TOPICS}, its text mixes that topic's words with common ones, and its embedding lies
 * near the topic's centroid, so its nearest neighbours and the documents matching a topic's word
 * are known without an index. Everything follows from {@code i}: a restarted source writes the
 * same documents again.
 */
final class Documents {
    static final int DIMENSION = 16;

    static final String[][] TOPIC_WORDS = {
        {"harbor", "ferry", "tide", "anchor"},
        {"orchard", "apple", "harvest", "cider"},
        {"glacier", "summit", "crevasse", "rope"},
        {"violin", "sonata", "rehearsal", "encore"},
        {"compiler", "parser", "bytecode", "linker"},
        {"bakery", "sourdough", "oven", "crust"},
        {"comet", "telescope", "orbit", "nebula"},
        {"canal", "lock", "barge", "towpath"}
    };

    static final int TOPICS = TOPIC_WORDS.length;

    private static final String[] COMMON = {"the", "a", "new", "old", "notes", "about", "morning", "report"};

    /** How far an embedding lies from its topic's centroid, per coordinate; centroids are about 1 apart. */
    private static final double SPREAD = 0.05;

    private Documents() {}

    static int topic(long id) {
        return (int) (id % TOPICS);
    }

    static String title(long id) {
        return TOPIC_WORDS[topic(id)][0] + " notes #" + id;
    }

    static String text(long id) {
        SplittableRandom random = new SplittableRandom(id);
        String[] words = TOPIC_WORDS[topic(id)];
        StringBuilder text = new StringBuilder();
        for (int w = 0; w < 8; w++) {
            boolean topical = w % 2 == 0;
            String word = topical ? words[random.nextInt(words.length)] : COMMON[random.nextInt(COMMON.length)];
            text.append(w == 0 ? "" : " ").append(word);
        }
        return text.toString();
    }

    /** The topic's centroid: a fixed point of the unit cube, the same in every run. */
    static float[] centroid(int topic) {
        SplittableRandom random = new SplittableRandom(1_000 + topic);
        float[] centroid = new float[DIMENSION];
        for (int d = 0; d < DIMENSION; d++) {
            centroid[d] = (float) random.nextDouble();
        }
        return centroid;
    }

    static float[] embedding(long id) {
        SplittableRandom random = new SplittableRandom(~id);
        float[] vector = centroid(topic(id));
        for (int d = 0; d < DIMENSION; d++) {
            vector[d] += (float) ((random.nextDouble() * 2 - 1) * SPREAD);
        }
        return vector;
    }

    /** Document {@code id} as the demo's row: id, title, text, embedding. */
    static Row document(long id) {
        float[] embedding = embedding(id);
        Float[] boxed = new Float[DIMENSION];
        for (int d = 0; d < DIMENSION; d++) {
            boxed[d] = embedding[d];
        }
        return Row.of(id, title(id), text(id), boxed);
    }
}

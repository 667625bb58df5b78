package io.walsink.bench.jmh;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;

/**
 * One benchmark class at one combination of its {@code @Param} values: the unit whose methods
 * are compared with each other. Its {@code baseline} method, if any, comes first.
 */
record BenchmarkGroup(Class<?> type, Map<String, String> params, List<String> methods) {
    static final String BASELINE = "baseline";

    boolean hasBaseline() {
        return methods.contains(BASELINE);
    }

    String paramsText() {
        return String.join(
                ",",
                params.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .toList());
    }

    /**
     * Groups of {@code types} with at least one method whose full name matches {@code include}
     * (a regex, found anywhere in {@code package.Class.method}); a selected method's baseline is
     * always kept, since ratios need it.
     */
    static List<BenchmarkGroup> discover(List<Class<?>> types, Pattern include) {
        List<BenchmarkGroup> groups = new ArrayList<>();
        for (Class<?> type : types) {
            List<String> methods = selectedMethods(type, include);
            if (methods.isEmpty()) {
                continue;
            }
            for (Map<String, String> params : paramCombinations(type)) {
                groups.add(new BenchmarkGroup(type, params, methods));
            }
        }
        return groups;
    }

    private static List<String> selectedMethods(Class<?> type, Pattern include) {
        List<String> methods = new ArrayList<>();
        for (Method m : type.getMethods()) {
            if (m.isAnnotationPresent(Benchmark.class)
                    && include.matcher(type.getName() + "." + m.getName()).find()) {
                methods.add(m.getName());
            }
        }
        boolean hasBaseline = Arrays.stream(type.getMethods())
                .anyMatch(m -> m.getName().equals(BASELINE) && m.isAnnotationPresent(Benchmark.class));
        if (!methods.isEmpty() && hasBaseline && !methods.contains(BASELINE)) {
            methods.add(BASELINE);
        }
        methods.sort(Comparator.comparing((String m) -> !m.equals(BASELINE)).thenComparing(m -> m));
        return methods;
    }

    /** The cartesian product of the class's {@code @Param} values, in field-name order. */
    private static List<Map<String, String>> paramCombinations(Class<?> type) {
        List<Map<String, String>> combinations = new ArrayList<>();
        combinations.add(new LinkedHashMap<>());
        List<Field> fields = new ArrayList<>(Arrays.stream(type.getFields())
                .filter(f -> f.isAnnotationPresent(Param.class))
                .toList());
        fields.sort(Comparator.comparing(Field::getName));
        for (Field f : fields) {
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> partial : combinations) {
                for (String value : f.getAnnotation(Param.class).value()) {
                    Map<String, String> extended = new LinkedHashMap<>(partial);
                    extended.put(f.getName(), value);
                    next.add(extended);
                }
            }
            combinations = next;
        }
        return combinations;
    }
}

package io.walsink.flink.convert;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The readable properties of a Java record (its components) or POJO (public getters
 * {@code getX()} / {@code isX()}, then public fields), each with its generic type and a getter
 * handle typed {@code (Object)Object} so that a converter calls it without reflection per value.
 */
final class JavaProperties {
    private static final MethodType GETTER = MethodType.methodType(Object.class, Object.class);

    record Property(String name, Type type, MethodHandle getter, String declaration) {
        Object get(Object instance) {
            try {
                return getter.invokeExact(instance);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("reading " + declaration + " failed", t);
            }
        }
    }

    private JavaProperties() {}

    static Map<String, Property> of(Class<?> type) {
        Map<String, Property> properties = new LinkedHashMap<>();
        if (type.isRecord()) {
            for (RecordComponent c : type.getRecordComponents()) {
                properties.put(c.getName(), property(c.getName(), c.getGenericType(), c.getAccessor()));
            }
            return properties;
        }
        for (Method m : type.getMethods()) {
            String name = getterProperty(m);
            if (name != null) {
                properties.putIfAbsent(name, property(name, m.getGenericReturnType(), m));
            }
        }
        for (Field f : type.getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                properties.putIfAbsent(f.getName(), property(f));
            }
        }
        return properties;
    }

    private static String getterProperty(Method m) {
        if (Modifier.isStatic(m.getModifiers())
                || m.getParameterCount() != 0
                || m.getDeclaringClass() == Object.class) {
            return null;
        }
        String n = m.getName();
        if (n.startsWith("get") && n.length() > 3 && m.getReturnType() != void.class) {
            return decapitalize(n.substring(3));
        }
        if (n.startsWith("is") && n.length() > 2 && m.getReturnType() == boolean.class) {
            return decapitalize(n.substring(2));
        }
        return null;
    }

    private static String decapitalize(String s) {
        return Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }

    private static Property property(String name, Type type, Method accessor) {
        try {
            accessor.setAccessible(true); // records and POJOs declared in non-public classes
            MethodHandle handle = MethodHandles.lookup().unreflect(accessor).asType(GETTER);
            return new Property(name, type, handle, accessor.toString());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read " + accessor + ": " + e.getMessage(), e);
        }
    }

    private static Property property(Field field) {
        try {
            MethodHandle handle = MethodHandles.lookup().unreflectGetter(field).asType(GETTER);
            return new Property(field.getName(), field.getGenericType(), handle, field.toString());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot read " + field + ": " + e.getMessage(), e);
        }
    }
}

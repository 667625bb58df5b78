package io.walsink.table.catalog;

import io.walsink.annotation.Internal;
import io.walsink.table.WalSinkTableFactory;
import io.walsink.table.WalSinkTableOptions;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CommonCatalogOptions;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/** {@code 'type' = 'walsink'}: creates a {@link WalSinkCatalog} from {@code CREATE CATALOG} options. */
@Internal
public final class WalSinkCatalogFactory implements CatalogFactory {
    public static final ConfigOption<String> WAREHOUSE = ConfigOptions.key("warehouse")
            .stringType()
            .noDefaultValue()
            .withDescription("The folder whose Lance tables the catalog holds, each at <warehouse>/<name>.lance:"
                    + " file:///dir, a local directory, or s3://bucket/prefix. Required.");

    public static final ConfigOption<String> DEFAULT_DATABASE = ConfigOptions.key(
                    CommonCatalogOptions.DEFAULT_DATABASE_KEY)
            .stringType()
            .defaultValue("default")
            .withDescription("The name of the database that is the warehouse folder itself; CREATE DATABASE db"
                    + " adds the sub-folder <warehouse>/db/.");

    private static final List<ConfigOption<?>> S3 = List.of(
            WalSinkTableOptions.S3_ENDPOINT,
            WalSinkTableOptions.S3_REGION,
            WalSinkTableOptions.S3_PATH_STYLE_ACCESS,
            WalSinkTableOptions.S3_ACCESS_KEY,
            WalSinkTableOptions.S3_SECRET_KEY,
            WalSinkTableOptions.S3_CHECKSUM_MODE);

    @Override
    public String factoryIdentifier() {
        return WalSinkTableFactory.IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(WAREHOUSE);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> optional = new LinkedHashSet<>(S3);
        optional.add(DEFAULT_DATABASE);
        return optional;
    }

    @Override
    public Catalog createCatalog(Context context) {
        FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
        helper.validate();
        Map<String, String> s3 = new LinkedHashMap<>();
        for (ConfigOption<?> option : S3) {
            String value = context.getOptions().get(option.key());
            if (value != null) {
                s3.put(option.key(), value);
            }
        }
        return new WalSinkCatalog(
                context.getName(),
                helper.getOptions().get(DEFAULT_DATABASE),
                helper.getOptions().get(WAREHOUSE),
                s3);
    }
}

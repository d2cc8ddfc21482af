/**
 * Files copied beside every function's handler (`copyFiles`), read at run time instead of bundled. Apart from
 * definitions.ts so that the code reading them bundles only these names.
 */

/** libphonenumber-js's "min" metadata, read on a function's first phone parse (core/shared/phone-metadata.ts). */
export const phoneMetadataFile = {
  from: "node_modules/libphonenumber-js/metadata.min.json",
  to: "phone-metadata.json",
} as const;

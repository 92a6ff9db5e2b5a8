// Manage GARM (GitHub Actions Runner Manager) scale sets and providers from Pulumi.
package garm

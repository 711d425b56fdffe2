/**
 * Consumers (agents that submit requests), their daily quota, their webhooks and deliveries.
 */
export { checkDailyQuota, dailyQuotaOf } from './consumer-quota.js';
export { type ConsumerInput, consumerView, deleteConsumer, type DeliveryListQuery, deliveryView, kindSchemaOf, listDeliveries, listKinds, registerConsumer, retryDelivery } from './consumers.js';

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_srpt: SCSI RDMA Protocol (SRP) target driver for the LIO target core.
 *
 * The file reads in the order of an object's life:
 *   1. module parameters
 *   2. RDMA devices and ports (IB client, port events)
 *   3. configfs / LIO glue (target ports, TPGs, node ACLs)
 *   4. module init and exit
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <scsi/scsi_proto.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "ib_srpt.h"

MODULE_AUTHOR("The ib_srpt authors");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(SRPT_DRV_VERSION);

/*
 * srpt_dev_mutex protects srpt_dev_list, srpt_tport_list, the port
 * attributes in every srpt_port and the binding srpt_tport.sport.
 */
static DEFINE_MUTEX(srpt_dev_mutex);
static LIST_HEAD(srpt_dev_list);	/* struct srpt_device, by .entry */
static LIST_HEAD(srpt_tport_list);	/* struct srpt_tport, by .entry */

static const struct target_core_fabric_ops srpt_template;
static struct ib_client srpt_client;

/* ======================================================================== */
/* 1. Module parameters                                                     */
/* ======================================================================== */

static unsigned int srp_max_req_size = SRPT_DEF_MAX_REQ_SIZE;
static unsigned int srpt_srq_size = SRPT_DEF_SRQ_SIZE;
static u64 srpt_service_guid;

/**
 * srpt_param_set_uint_range() - set an unsigned int parameter within bounds
 * @val: text written by the user (module load line or sysfs).
 * @kp: the parameter; kp->arg points at the variable.
 * @min: smallest accepted value.
 * @max: largest accepted value.
 *
 * Return: 0, or -EINVAL with a log line naming the parameter and its range.
 */
static int srpt_param_set_uint_range(const char *val,
				     const struct kernel_param *kp,
				     unsigned int min, unsigned int max)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v < min || v > max) {
		pr_err("invalid value '%s' for parameter %s: must be an integer in [%u..%u]\n",
		       val, kp->name, min, max);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int srpt_param_set_max_req_size(const char *val,
				       const struct kernel_param *kp)
{
	return srpt_param_set_uint_range(val, kp, SRPT_MIN_MAX_REQ_SIZE,
					 SRPT_MAX_MAX_REQ_SIZE);
}

static const struct kernel_param_ops srpt_max_req_size_ops = {
	.set = srpt_param_set_max_req_size,
	.get = param_get_uint,
};
module_param_cb(srp_max_req_size, &srpt_max_req_size_ops, &srp_max_req_size,
		0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Maximum size of SRP request messages in bytes (996..65536, default 8276).");

static int srpt_param_set_srq_size(const char *val,
				   const struct kernel_param *kp)
{
	return srpt_param_set_uint_range(val, kp, SRPT_MIN_SRQ_SIZE,
					 SRPT_MAX_SRQ_SIZE);
}

static const struct kernel_param_ops srpt_srq_size_ops = {
	.set = srpt_param_set_srq_size,
	.get = param_get_uint,
};
module_param_cb(srpt_srq_size, &srpt_srq_size_ops, &srpt_srq_size, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Shared receive queue (SRQ) size (4..65535, default 4095).");

/**
 * srpt_param_set_guid() - parse srpt_service_guid
 * @val: hexadecimal text, with or without "0x".
 * @kp: the parameter.
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_param_set_guid(const char *val, const struct kernel_param *kp)
{
	u64 v;

	if (kstrtou64(val, 16, &v)) {
		pr_err("invalid value '%s' for parameter %s: must be a 64-bit hexadecimal number\n",
		       val, kp->name);
		return -EINVAL;
	}
	*(u64 *)kp->arg = v;
	return 0;
}

static int srpt_param_get_guid(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "0x%016llx\n", *(u64 *)kp->arg);
}

static const struct kernel_param_ops srpt_guid_ops = {
	.set = srpt_param_set_guid,
	.get = srpt_param_get_guid,
};
module_param_cb(srpt_service_guid, &srpt_guid_ops, &srpt_service_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Service GUID used as ioc_guid, id_ext and IB CM service id (default: node GUID of the first RDMA device).");

/* ======================================================================== */
/* 2. RDMA devices and ports                                                */
/* ======================================================================== */

/**
 * srpt_port_matches() - whether a target port name stands for this port
 * @sport: RDMA port.
 * @id: parsed target port name.
 *
 * A GUID-form name matches the interface id of GID 0, a GID-form name the
 * whole GID 0.  A port without a GID matches nothing.
 */
static bool srpt_port_matches(const struct srpt_port *sport,
			      const struct srpt_name *id)
{
	static const u8 zero[16];

	lockdep_assert_held(&srpt_dev_mutex);
	if (!memcmp(sport->gid, zero, sizeof(zero)))
		return false;
	switch (id->kind) {
	case SRPT_NAME_GUID:
		return !memcmp(sport->gid + 8, id->id + 8, 8);
	case SRPT_NAME_GID:
		return !memcmp(sport->gid, id->id, 16);
	default:
		return false;
	}
}

/**
 * srpt_find_port() - the RDMA port that carries a target port name
 * @id: parsed target port name.
 *
 * Return: the first matching port, or NULL.
 */
static struct srpt_port *srpt_find_port(const struct srpt_name *id)
{
	struct srpt_device *sdev;
	u32 i;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, entry) {
		for (i = 0; i < sdev->port_cnt; i++)
			if (srpt_port_matches(&sdev->ports[i], id))
				return &sdev->ports[i];
	}
	return NULL;
}

/**
 * srpt_rebind_tports() - bind every configured target port to its RDMA port
 *
 * Called whenever the set of devices or a port's GID changed.  A target port
 * whose GUID or GID no RDMA port carries any more stays configured, unbound,
 * and is bound again as soon as a port with that identity appears (e.g. after
 * "rdma link del" and "rdma link add" of a soft-RoCE device).
 */
static void srpt_rebind_tports(void)
{
	struct srpt_tport *tport;
	struct srpt_port *sport;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(tport, &srpt_tport_list, entry) {
		sport = srpt_find_port(&tport->id);
		if (sport == tport->sport)
			continue;
		if (sport)
			pr_info("target port %s: bound to %s port %u\n",
				tport->name, dev_name(&sport->sdev->device->dev),
				sport->port_num);
		else
			pr_info("target port %s: no RDMA port carries it any more; it stays configured until removed\n",
				tport->name);
		tport->sport = sport;
	}
}

/**
 * srpt_port_refresh() - re-read the attributes and GID 0 of a port
 * @sport: port to refresh.
 *
 * Updates the port's names and rebinds target ports when the GID changed.
 */
static void srpt_port_refresh(struct srpt_port *sport)
{
	struct ib_device *dev = sport->sdev->device;
	struct ib_port_attr attr;
	union ib_gid gid;
	int ret;

	ret = ib_query_port(dev, sport->port_num, &attr);
	if (ret) {
		pr_warn("%s port %u: querying port attributes failed (%d)\n",
			dev_name(&dev->dev), sport->port_num, ret);
		memset(&attr, 0, sizeof(attr));
	}
	if (rdma_query_gid(dev, sport->port_num, 0, &gid))
		memset(&gid, 0, sizeof(gid));

	mutex_lock(&srpt_dev_mutex);
	sport->state = attr.state;
	sport->lid = attr.lid;
	sport->sm_lid = attr.sm_lid;
	if (memcmp(sport->gid, gid.raw, sizeof(sport->gid))) {
		memcpy(sport->gid, gid.raw, sizeof(sport->gid));
		srpt_format_guid_name(sport->guid_name, sport->gid + 8);
		srpt_format_gid_name(sport->gid_name, sport->gid);
		pr_info("%s port %u: target port names %s and %s\n",
			dev_name(&dev->dev), sport->port_num,
			sport->guid_name, sport->gid_name);
		srpt_rebind_tports();
	}
	mutex_unlock(&srpt_dev_mutex);
}

static void srpt_port_refresh_work(struct work_struct *work)
{
	srpt_port_refresh(container_of(work, struct srpt_port, refresh_work));
}

/**
 * srpt_event_handler() - asynchronous RDMA device event callback
 * @handler: our handler, embedded in struct srpt_device.
 * @event: the event.
 *
 * May run in atomic context, so port changes are handled in a work item.
 */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_device *sdev =
		container_of(handler, struct srpt_device, event_handler);
	u32 port_num = event->element.port_num;

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		if (port_num < 1 || port_num > sdev->port_cnt) {
			pr_warn("%s: event %s for invalid port %u\n",
				dev_name(&sdev->device->dev),
				ib_event_msg(event->event), port_num);
			return;
		}
		pr_debug("%s port %u: %s\n", dev_name(&sdev->device->dev),
			 port_num, ib_event_msg(event->event));
		schedule_work(&sdev->ports[port_num - 1].refresh_work);
		break;
	default:
		break;
	}
}

/**
 * srpt_add_one() - IB client callback for a new RDMA device
 * @device: the device.
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP tells the RDMA core that this
 * client does not use the device.
 */
static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device *sdev;
	u32 i;

	sdev = kzalloc(struct_size(sdev, ports, device->phys_port_cnt),
		       GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->device = device;
	sdev->port_cnt = device->phys_port_cnt;
	for (i = 0; i < sdev->port_cnt; i++) {
		sdev->ports[i].sdev = sdev;
		sdev->ports[i].port_num = i + 1;
		INIT_WORK(&sdev->ports[i].refresh_work, srpt_port_refresh_work);
	}

	mutex_lock(&srpt_dev_mutex);
	if (!srpt_service_guid)
		srpt_service_guid = be64_to_cpu(device->node_guid);
	list_add_tail(&sdev->entry, &srpt_dev_list);
	mutex_unlock(&srpt_dev_mutex);

	INIT_IB_EVENT_HANDLER(&sdev->event_handler, device, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);

	for (i = 0; i < sdev->port_cnt; i++)
		srpt_port_refresh(&sdev->ports[i]);

	ib_set_client_data(device, &srpt_client, sdev);
	pr_info("added %s with %u port(s)\n", dev_name(&device->dev),
		sdev->port_cnt);
	return 0;
}

/**
 * srpt_remove_one() - IB client callback for a device going away
 * @device: the device.
 * @client_data: our srpt_device.
 *
 * Target ports bound to the device's ports become unbound; they stay in
 * configfs until the administrator removes them.
 */
static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_device *sdev = client_data;
	u32 i;

	ib_unregister_event_handler(&sdev->event_handler);
	for (i = 0; i < sdev->port_cnt; i++)
		cancel_work_sync(&sdev->ports[i].refresh_work);

	mutex_lock(&srpt_dev_mutex);
	list_del(&sdev->entry);
	srpt_rebind_tports();
	mutex_unlock(&srpt_dev_mutex);

	pr_info("removed %s\n", dev_name(&device->dev));
	kfree(sdev);
}

static struct ib_client srpt_client = {
	.name = "srpt",
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

/* ======================================================================== */
/* 3. configfs / LIO glue                                                   */
/* ======================================================================== */

static inline struct srpt_tport *srpt_wwn_to_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_tport, wwn);
}

static inline struct srpt_tpg *srpt_se_tpg_to_tpg(struct se_portal_group *tpg)
{
	return container_of(tpg, struct srpt_tpg, tpg);
}

/**
 * srpt_make_tport() - mkdir /sys/kernel/config/target/srpt/$name
 * @tf: unused.
 * @group: unused.
 * @name: GUID or GID form name of an RDMA port (see srpt_parse_target_name()).
 *
 * Return: the new target port or an ERR_PTR(): -EINVAL for a malformed name
 * or one that no RDMA port carries, -EEXIST when another spelling of the
 * same name exists already.
 */
static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_tport *tport, *t;
	struct srpt_name id;
	int ret;

	if (srpt_parse_target_name(name, &id)) {
		pr_err("invalid target port name '%s': use the port GUID (xxxx:xxxx:xxxx:xxxx) or GID (0x followed by 32 hex digits) of GID index 0 of an RDMA port\n",
		       name);
		return ERR_PTR(-EINVAL);
	}

	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	tport->id = id;
	if (id.kind == SRPT_NAME_GUID)
		srpt_format_guid_name(tport->name, id.id + 8);
	else
		srpt_format_gid_name(tport->name, id.id);
	mutex_init(&tport->tpg_mutex);
	INIT_LIST_HEAD(&tport->tpg_list);

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(t, &srpt_tport_list, entry) {
		if (t->id.kind == id.kind && !memcmp(t->id.id, id.id, 16)) {
			pr_err("target port %s exists already (as another spelling of '%s')\n",
			       t->name, name);
			ret = -EEXIST;
			goto unlock;
		}
	}
	tport->sport = srpt_find_port(&id);
	if (!tport->sport) {
		pr_err("invalid target port name '%s': no RDMA port has that %s at GID index 0\n",
		       name, id.kind == SRPT_NAME_GUID ? "port GUID" : "GID");
		ret = -EINVAL;
		goto unlock;
	}
	list_add_tail(&tport->entry, &srpt_tport_list);
	pr_info("target port %s: created on %s port %u\n", tport->name,
		dev_name(&tport->sport->sdev->device->dev),
		tport->sport->port_num);
	mutex_unlock(&srpt_dev_mutex);
	return &tport->wwn;

unlock:
	mutex_unlock(&srpt_dev_mutex);
	mutex_destroy(&tport->tpg_mutex);
	kfree(tport);
	return ERR_PTR(ret);
}

/**
 * srpt_drop_tport() - rmdir /sys/kernel/config/target/srpt/$name
 * @wwn: the target port; configfs has removed its TPGs already.
 */
static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(wwn);

	mutex_lock(&srpt_dev_mutex);
	list_del(&tport->entry);
	mutex_unlock(&srpt_dev_mutex);

	WARN_ON_ONCE(!list_empty(&tport->tpg_list));
	pr_info("target port %s: removed\n", tport->name);
	mutex_destroy(&tport->tpg_mutex);
	kfree(tport);
}

/**
 * srpt_make_tpg() - mkdir /sys/kernel/config/target/srpt/$port/$tpg
 * @wwn: the target port.
 * @name: any name; every srpt TPG has tag 1.
 *
 * Return: the new TPG or an ERR_PTR().
 */
static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(wwn);
	struct srpt_tpg *stpg;
	int ret;

	stpg = kzalloc(sizeof(*stpg), GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->tport = tport;
	ret = core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}

	mutex_lock(&tport->tpg_mutex);
	list_add_tail(&stpg->entry, &tport->tpg_list);
	mutex_unlock(&tport->tpg_mutex);
	return &stpg->tpg;
}

/**
 * srpt_drop_tpg() - rmdir /sys/kernel/config/target/srpt/$port/$tpg
 * @tpg: the TPG; configfs has removed its LUNs and ACLs already.
 */
static void srpt_drop_tpg(struct se_portal_group *tpg)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(tpg);
	struct srpt_tport *tport = stpg->tport;

	mutex_lock(&tport->tpg_mutex);
	stpg->enabled = false;
	list_del(&stpg->entry);
	mutex_unlock(&tport->tpg_mutex);

	core_tpg_deregister(tpg);
	kfree(stpg);
}

/**
 * srpt_enable_tpg() - write 0 or 1 to .../$tpg/enable
 * @tpg: the TPG.
 * @enable: whether new logins may be accepted through it.
 *
 * Return: 0.
 */
static int srpt_enable_tpg(struct se_portal_group *tpg, bool enable)
{
	struct srpt_tpg *stpg = srpt_se_tpg_to_tpg(tpg);

	mutex_lock(&stpg->tport->tpg_mutex);
	stpg->enabled = enable;
	mutex_unlock(&stpg->tport->tpg_mutex);
	pr_info("target port %s: TPG %s %s\n", stpg->tport->name,
		config_item_name(&tpg->tpg_group.cg_item),
		enable ? "enabled" : "disabled");
	return 0;
}

/**
 * srpt_init_nodeacl() - mkdir .../$tpg/acls/$name
 * @se_nacl: the new node ACL.
 * @name: initiator name (see srpt_parse_initiator_name()).
 *
 * Return: 0 or -EINVAL.
 */
static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	struct srpt_name id;

	if (srpt_parse_initiator_name(name, &id)) {
		pr_err("invalid initiator name '%s': use the initiator port GUID (xxxx:xxxx:xxxx:xxxx), the 128-bit initiator port id as 32 hex digits with or without 0x, or an IPv4 or IPv6 address\n",
		       name);
		return -EINVAL;
	}
	return 0;
}

static char *srpt_get_fabric_wwn(struct se_portal_group *tpg)
{
	return srpt_se_tpg_to_tpg(tpg)->tport->name;
}

static u16 srpt_get_tag(struct se_portal_group *tpg)
{
	return 1;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *tpg)
{
	return 1;
}

static int srpt_check_false(struct se_portal_group *tpg)
{
	return 0;
}

static int srpt_check_true(struct se_portal_group *tpg)
{
	return 1;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

/*
 * LIO command callbacks.  This version of the driver accepts no logins, so no
 * session and no se_cmd ever exists and LIO never calls these; they exist
 * because target_register_template() requires them.  The command path
 * replaces them.
 */
static int srpt_no_cmd(struct se_cmd *cmd)
{
	WARN_ONCE(1, "ib_srpt: LIO command callback without a command path\n");
	return -EOPNOTSUPP;
}

static void srpt_no_cmd_void(struct se_cmd *cmd)
{
	WARN_ONCE(1, "ib_srpt: LIO command callback without a command path\n");
}

static void srpt_no_session(struct se_session *se_sess)
{
	WARN_ONCE(1, "ib_srpt: LIO session callback without sessions\n");
}

static ssize_t srpt_wwn_version_show(struct config_item *item, char *buf)
{
	return sysfs_emit(buf, "%s\n", SRPT_DRV_VERSION);
}
CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

static const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,
	.release_cmd			= srpt_no_cmd_void,
	.check_stop_free		= srpt_no_cmd,
	.close_session			= srpt_no_session,
	.sess_get_index			= srpt_sess_get_index,
	.write_pending			= srpt_no_cmd,
	.set_default_node_attributes	= srpt_set_default_node_attrs,
	.get_cmd_state			= srpt_no_cmd,
	.queue_data_in			= srpt_no_cmd,
	.queue_status			= srpt_no_cmd,
	.queue_tm_rsp			= srpt_no_cmd_void,
	.aborted_task			= srpt_no_cmd_void,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.fabric_make_tpg		= srpt_make_tpg,
	.fabric_enable_tpg		= srpt_enable_tpg,
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
};

/* ======================================================================== */
/* 4. Module init and exit                                                  */
/* ======================================================================== */

/**
 * srpt_init_module() - register with the LIO core, then with the RDMA core
 *
 * LIO first: srpt_add_one() may bind configured target ports, so the fabric
 * must exist before the first device is added.
 *
 * Return: 0 or a negative errno.
 */
static int __init srpt_init_module(void)
{
	int ret;

	ret = target_register_template(&srpt_template);
	if (ret) {
		pr_err("registering the srpt fabric with LIO failed (%d)\n",
		       ret);
		return ret;
	}

	ret = ib_register_client(&srpt_client);
	if (ret) {
		pr_err("registering the IB client failed (%d)\n", ret);
		goto unregister_template;
	}

	pr_info("version %s loaded (srp_max_req_size %u, srpt_srq_size %u)\n",
		SRPT_DRV_VERSION, srp_max_req_size, srpt_srq_size);
	return 0;

unregister_template:
	target_unregister_template(&srpt_template);
	return ret;
}

static void __exit srpt_cleanup_module(void)
{
	ib_unregister_client(&srpt_client);
	target_unregister_template(&srpt_template);
	WARN_ON_ONCE(!list_empty(&srpt_tport_list));
	pr_info("unloaded\n");
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);

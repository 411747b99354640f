B	initial_cJ0ƒ˜¾šw?¿éDx»JÎ%¿e t¿¿=˜½V<s>f×R½³>ÅË¿‘­D?‡)
¿